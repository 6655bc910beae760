import * as z from "zod/mini";
import { controllerInventory } from "../../domain/herdr/inventory.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { CONTROL_ENV } from "./shared.ts";

export const statusOptionsSchema = z.object({});
export type StatusOptions = z.output<typeof statusOptionsSchema>;
type Inventory = Awaited<ReturnType<typeof controllerInventory>>;

const runStatus = async (_options: StatusOptions, deps: DepsOf<"herdr">): Promise<Inventory> => controllerInventory(deps);

const render = (r: Inventory): string => {
  const c = r.controller;
  const lines = [
    c
      ? `controller ${r.controller_id}: ${c.expired ? "expired" : c.state} (lease ${c.lease_ref}, until ${c.expires_at}${c.held_on_this_host ? "" : ", held on another host"})`
      : `controller ${r.controller_id}: no lease`,
  ];
  if (!r.herdr_reachable) lines.push("herdr: not reachable (live identity unknown)");
  for (const lease of r.leases) {
    const live = lease.live === "matched" ? `${lease.live_status} at seq ${lease.live_seq}` : lease.live;
    const blocked = lease.outstanding_receipts.length > 0 ? ` · receipts ${lease.outstanding_receipts.join(" ")}` : "";
    lines.push(
      `  ${lease.type} ${lease.agent_name} (${lease.agent_kind}) ${lease.state} · pane ${lease.pane_id ?? "-"} · ${live}${blocked}`,
    );
    lines.push(`    ${lease.lease_id} · ${neutralizeLine(lease.cwd)}`);
  }
  if (r.leases.length === 0) lines.push("  no held leases");
  return lines.join("\n");
};

export default defineCommand({
  name: "herdr-agent-control status",
  summary: "this controller's lease and held leases, each with its live identity (read-only)",
  description:
    "Lists the controller lease named by AGENT_CONTROL_CONTROLLER_ID (state, generation, expiry; never its credentials) and " +
    "every held reviewer, writer and adopted lease of it on this host, each checked against `herdr agent list`: matched " +
    "(with live status and state_change_seq), identity_mismatch, missing, or unknown when Herdr is unreachable. Loads no fence.",
  schema: statusOptionsSchema,
  writes: "nothing.",
  output:
    '{"controller_id","controller":{"state","lease_ref","generation","expires_at","expired","held_on_this_host","bound_here","pane_id"?,' +
    '"agent_name"?,"agent_kind"?}|null,"herdr_reachable","leases":[{"lease_id","type","state","agent_name","agent_kind","cwd",' +
    '"pane_id","purpose","created_at","updated_at","writer"?,"live":"matched|identity_mismatch|missing|unknown","live_status"?,' +
    '"live_seq"?,"outstanding_receipts":[]}],"ended_leases"}',
  errors: ["INVALID_INPUT", "CONTROLLER_CONTEXT_MISSING", ...STORE_ERRORS, "INTERNAL"],
  env: CONTROL_ENV,
  examples: ["herdr-agent-control status", "herdr-agent-control status --json | jq '.leases[] | {agent_name, live_seq}'"],
  needs: { deps: "herdr" },
  run: runStatus,
  render,
});
