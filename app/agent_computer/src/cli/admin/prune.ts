import * as z from "zod/mini";
import { commandLine } from "../../command-line.ts";
import {
  cutoffOf,
  DEFAULT_RETENTION_DAYS,
  MAX_RETENTION_DAYS,
  previewPrune,
  prune,
  RETENTION_ENV,
} from "../../domain/admin/retention-prune.ts";
import { iso } from "../../domain/deps.ts";
import { STORE_ERRORS } from "../../errors.ts";
import type { PruneCounts } from "../../store/port.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ADMIN_ENV } from "./admin-env.ts";

export const pruneOptionsSchema = z.object({
  olderThan: z.coerce
    .number()
    .check(z.int(), z.minimum(1), z.maximum(MAX_RETENTION_DAYS), z.describe("days: prune only what is older than this")),
  confirm: z._default(z.boolean(), false).check(z.describe("actually delete; without it only the counts are shown")),
});
type PruneOptions = z.output<typeof pruneOptionsSchema>;

export interface PruneResult {
  older_than_days: number;
  cutoff: string;
  /** true: nothing was deleted; the counts are what --confirm would delete now. */
  preview: boolean;
  messages: number;
  run_tails: number;
  webhook_events: number;
}

const shape = (options: PruneOptions, cutoff: number, preview: boolean, counts: PruneCounts): PruneResult => ({
  older_than_days: options.olderThan,
  cutoff: iso(cutoff),
  preview,
  messages: counts.messages,
  run_tails: counts.runTails,
  webhook_events: counts.webhookEvents,
});

const runPrune = async (options: PruneOptions, deps: DepsOf<"store">): Promise<PruneResult> => {
  const cutoff = cutoffOf(deps.now(), options.olderThan);
  if (!options.confirm) return shape(options, cutoff, true, await previewPrune(deps, options.olderThan));
  return shape(options, cutoff, false, (await prune(deps, options.olderThan)).pruned);
};

const render = (r: PruneResult): string => {
  const counts = `${r.messages} message(s), ${r.run_tails} run output tail(s), ${r.webhook_events} webhook event(s)`;
  if (!r.preview) return `pruned ${counts} older than ${r.older_than_days} day(s) (before ${r.cutoff})`;
  return [
    `PREVIEW (nothing deleted): would prune ${counts} older than ${r.older_than_days} day(s) (before ${r.cutoff})`,
    `to delete them: ${commandLine("agent-computer-admin", "prune", "--older-than", String(r.older_than_days), "--confirm")}`,
  ].join("\n");
};

export default defineCommand({
  name: "agent-computer-admin prune",
  summary: "delete acknowledged and expired mail, ended runs' output tails and ended webhook events older than N days",
  description:
    "Retention by hand. Past the cut-off (now minus --older-than days) it deletes: messages none of whose deliveries " +
    "is still pending (acknowledged, expired unread, or stored for agents that were not checked in), with their " +
    "deliveries and search entries; the stdout and stderr tails of automation runs that ended (succeeded, failed, " +
    "cancelled), keeping the runs themselves; delivered and failed outbound webhook events with their attempts. " +
    "Never: a message with a pending delivery, a queued or running run, a pending webhook event, an agent, a job, a " +
    "trigger, a lease or a reservation. A pruned message is gone from agent-sent-cli, agent-thread-cli and " +
    "agent-search-cli, and its idempotency key may be used again. Without --confirm it only counts what would go. " +
    "Deletes in batches of 500 rows, one transaction each, so writers keep going meanwhile. The worker prunes mail " +
    `and run tails the same way by itself every hour, past ${RETENTION_ENV} days (default ${DEFAULT_RETENTION_DAYS}; ` +
    "0 turns it off), and ended webhook events past its --webhook-retention-days. " +
    "No agent token: whoever can open the store (its file, or the database URL) may prune it.",
  schema: pruneOptionsSchema,
  flags: { olderThan: { placeholder: "<days>" } },
  writes: "with --confirm: deletes the rows described above; without it: nothing.",
  output: '{"older_than_days","cutoff","preview","messages","run_tails","webhook_events"}',
  errors: ["INVALID_INPUT", ...STORE_ERRORS, "INTERNAL"],
  env: [...ADMIN_ENV, RETENTION_ENV],
  examples: ["agent-computer-admin prune --older-than 30", "agent-computer-admin prune --older-than 30 --confirm --json"],
  needs: { deps: "store" },
  run: runPrune,
  render,
});
