import * as z from "zod/mini";
import { type LeaseInventory, leaseInventory } from "../../domain/herdr/lease-inventory.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { neutralizeLine } from "../kernel/output.ts";

export const inventoryOptionsSchema = z.object({});
export type InventoryOptions = z.output<typeof inventoryOptionsSchema>;

const runInventory = async (_options: InventoryOptions, deps: DepsOf<"herdr">): Promise<LeaseInventory> => leaseInventory(deps);

const render = (r: LeaseInventory): string => {
  const lines = [`${r.agents.length} agents in Herdr: ${r.leased} leased, ${r.unleased} unleased`];
  for (const agent of r.agents) {
    const holders = agent.held_by.map(
      (h) => `${h.kind} of ${h.controller_id} (${h.lease}, ${h.state}${h.identity === "matched" ? "" : ", identity_mismatch"})`,
    );
    const who = `${agent.name ?? "(unnamed)"} (${agent.kind ?? "?"}) ${agent.status} at seq ${agent.state_change_seq}`;
    lines.push(`  ${agent.pane_id} ${who} · ${holders.length > 0 ? holders.join("; ") : "unleased"}`);
    if (agent.cwd) lines.push(`    ${neutralizeLine(agent.cwd)}`);
  }
  for (const lease of r.leases_without_agent) {
    lines.push(
      `  no agent in pane ${lease.pane_id ?? "-"}: ${lease.kind} of ${lease.controller_id} (${lease.lease}, ${lease.state})`,
    );
  }
  return lines.join("\n");
};

export default defineCommand({
  name: "herdr-lease-cli inventory",
  summary: "every agent in Herdr, leased (by which controller, as controller/reviewer/writer/adopted) or unleased (read-only)",
  description:
    "Lists each agent `herdr agent list` shows with the leases of this host that name its pane: a controller's own pane " +
    "(while the store's lease is active at the generation bound here), reviewer, writer and adopted leases that are still " +
    "held, each with its controller and whether the agent Herdr shows is exactly the leased identity (pane, name, kind, " +
    "cwd; not the terminal id, which a Herdr handoff changes). An agent is leased when one such lease matches it exactly. Held leases whose pane Herdr does not list as " +
    "an agent are listed apart (herdr-lease-cli reconcile --apply ends those whose pane is gone or runs no agent). Needs no controller lease and no " +
    "AGENT_CONTROL_CONTROLLER_ID; shows no lease id of a controller (only its lease_ref), no fence and no credential path. " +
    "Herdr unreachable: UNAVAILABLE.",
  schema: inventoryOptionsSchema,
  writes: "nothing.",
  output:
    '{"agents":[{"pane_id","name","kind","status","state_change_seq","cwd","leased","held_by":[{"kind":"controller|reviewer|' +
    'writer|adopted","controller_id","lease":"<lease_id or controller lease_ref>","state","identity":"matched|identity_mismatch"}]}],' +
    '"leased","unleased","leases_without_agent":[{"kind","controller_id","lease","state","pane_id"}]}',
  errors: ["INVALID_INPUT", "UNAVAILABLE", "TIMEOUT", "HERDR_REFUSED", "NOT_FOUND", ...STORE_ERRORS, "INTERNAL"],
  env: ["HERDR_SOCKET_PATH", "AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL"],
  examples: ["herdr-lease-cli inventory", "herdr-lease-cli inventory --json | jq '.agents[] | select(.leased | not) | .name'"],
  needs: { deps: "herdr" },
  run: runInventory,
  render,
});
