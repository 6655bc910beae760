// Lease inventory: every agent Herdr lists, each with the lease that holds it on this host (reviewer, writer,
// adopted, or a controller's own pane) and by which controller, or none; plus held leases whose agent Herdr no
// longer lists. Read-only and credential-free: a controller lease is named by its public lease_ref only.
import type { HerdrAgent } from "../../adapters/herdr/client.ts";
import type { ControllerBinding } from "../../local/controller-files.ts";
import { listJson } from "../../local/herdr-state.ts";
import { sameIdentity } from "./agent-identity.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { viaHerdr } from "./herdr-failure.ts";
import { leaseRefOf } from "./lease-ref.ts";
import { isHeld, type LeaseRecord, leaseIdentity, listLeases } from "./leases.ts";

export type LeaseKind = "controller" | LeaseRecord["type"];

export interface HolderView {
  kind: LeaseKind;
  controller_id: string;
  /** A reviewer/writer/adopted lease id, or a controller's lease_ref. */
  lease: string;
  state: string;
  /** Whether the agent Herdr shows is exactly the identity the lease recorded. */
  identity: "matched" | "identity_mismatch";
}

export interface InventoryAgent {
  pane_id: string;
  name: string | null;
  kind: string | null;
  status: string;
  state_change_seq: number;
  cwd: string | null;
  leased: boolean;
  held_by: HolderView[];
}

export interface LeaseInventory {
  agents: InventoryAgent[];
  leased: number;
  unleased: number;
  /** Held leases of this host whose pane Herdr does not list as an agent (see herdr-lease-cli reconcile). */
  leases_without_agent: { kind: LeaseKind; controller_id: string; lease: string; state: string; pane_id: string | null }[];
}

// Not the terminal id: a Herdr handoff gives the pane a new one under the same agent (docs/herdr-identity.md).
const controllerMatches = (agent: HerdrAgent, binding: ControllerBinding): boolean =>
  agent.paneId === binding.pane_id && agent.name === binding.agent_name && agent.kind === binding.agent_kind;

export const leaseInventory = async (deps: HerdrDeps): Promise<LeaseInventory> => {
  const agents = await viaHerdr(deps.herdr.listAgents());
  const leases = listLeases(deps.dirs).filter((lease) => isHeld(lease.state) && lease.pane_id);
  const { store } = deps;
  // A binding counts only while the store's lease is active at the binding's generation (the rest are history).
  const bindings: { binding: ControllerBinding; ref: string }[] = [];
  for (const binding of listJson<ControllerBinding>(deps.dirs.controllers)) {
    const lease = await store.read((tx) => tx.herdr.controllerLease(binding.controller_id));
    if (lease?.state === "active" && lease.generation === binding.generation) bindings.push({ binding, ref: leaseRefOf(lease) });
  }
  const held = (agent: HerdrAgent): HolderView[] => [
    ...bindings
      .filter(({ binding }) => binding.pane_id === agent.paneId)
      .map(({ binding, ref }) => ({
        kind: "controller" as const,
        controller_id: binding.controller_id,
        lease: ref,
        state: "active",
        identity: controllerMatches(agent, binding) ? ("matched" as const) : ("identity_mismatch" as const),
      })),
    ...leases
      .filter((lease) => lease.pane_id === agent.paneId)
      .map((lease) => ({
        kind: lease.type,
        controller_id: lease.controller_id,
        lease: lease.lease_id,
        state: lease.state,
        // A lease whose start was cut before its agent's terminal was recorded cannot match whatever runs there.
        identity:
          lease.terminal_id && sameIdentity(agent, leaseIdentity(lease)) ? ("matched" as const) : ("identity_mismatch" as const),
      })),
  ];
  const listed = agents.map((agent) => {
    const holders = held(agent);
    return {
      pane_id: agent.paneId,
      name: agent.name ?? null,
      kind: agent.kind ?? null,
      status: agent.status,
      state_change_seq: agent.stateChangeSeq,
      cwd: agent.cwd ?? null,
      leased: holders.some((holder) => holder.identity === "matched"),
      held_by: holders,
    };
  });
  const panes = new Set(agents.map((agent) => agent.paneId));
  return {
    agents: listed,
    leased: listed.filter((agent) => agent.leased).length,
    unleased: listed.filter((agent) => !agent.leased).length,
    leases_without_agent: [
      ...bindings
        .filter(({ binding }) => !panes.has(binding.pane_id))
        .map(({ binding, ref }) => ({
          kind: "controller" as const,
          controller_id: binding.controller_id,
          lease: ref,
          state: "active",
          pane_id: binding.pane_id,
        })),
      ...leases
        .filter((lease) => !panes.has(lease.pane_id as string))
        .map((lease) => ({
          kind: lease.type,
          controller_id: lease.controller_id,
          lease: lease.lease_id,
          state: lease.state,
          pane_id: lease.pane_id,
        })),
    ],
  };
};
