import * as z from "zod/mini";
import { receiptList } from "../../domain/herdr/inventory.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { CONTROL_ENV } from "./shared.ts";

export const receiptsOptionsSchema = z.object({});
export type ReceiptsOptions = z.output<typeof receiptsOptionsSchema>;
type Receipts = ReturnType<typeof receiptList>;

const runReceipts = async (_options: ReceiptsOptions, deps: DepsOf<"herdr">): Promise<Receipts> => receiptList(deps);

const render = (r: Receipts): string =>
  r.receipts.length === 0
    ? `no receipts for controller ${r.controller_id}`
    : r.receipts
        .map(
          (x) =>
            `${x.receipt} ${x.target} ${x.state}${x.failure ? `/${x.failure}` : ""} · seq ${x.before_seq} → ${x.after_seq ?? "-"} → ${x.settled_seq ?? "-"} · ${x.updated_at}`,
        )
        .join("\n");

export default defineCommand({
  name: "herdr-agent-control receipts",
  summary: "this controller's handoff receipts, newest first (read-only)",
  description:
    "Every receipt of the controller named by AGENT_CONTROL_CONTROLLER_ID on this host. A receipt holds no request, output " +
    "or credential: only its target's identity and cursors. reserved = delivery not confirmed (blocks its target until " +
    "abandoned); pending = delivered, result not collected yet (blocks its target); completed; failed (delivery_failed, " +
    "identity_changed, cursor_superseded or abandoned). Cursors: before_seq (admission) < after_seq (seen working) < " +
    "settled_seq (result). Loads no fence.",
  schema: receiptsOptionsSchema,
  writes: "nothing.",
  output:
    '{"controller_id","receipts":[{"receipt","target","lease_id","state":"reserved|pending|completed|failed","pane_id",' +
    '"agent_kind","cwd","before_seq","after_seq","settled_seq","settled_status","failure","created_at","updated_at"}]}',
  errors: ["INVALID_INPUT", "CONTROLLER_CONTEXT_MISSING", "INTERNAL"],
  env: CONTROL_ENV,
  examples: [
    "herdr-agent-control receipts",
    "herdr-agent-control receipts --json | jq '.receipts[] | select(.state==\"pending\")'",
  ],
  needs: { deps: "herdr", usesStore: () => false },
  run: runReceipts,
  render,
});
