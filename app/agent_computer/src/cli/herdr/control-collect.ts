import * as z from "zod/mini";
import { collectReceipts } from "../../domain/herdr/collect.ts";
import type { HandoffOutput } from "../../domain/herdr/handoff-results.ts";
import { RECEIPT_TOKEN_PATTERN } from "../../domain/herdr/receipts.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { HANDOFF_OUTPUT, RESULT_STATES } from "./handoff-docs.ts";
import { authorityErrorsWith, CONTROL_ENV, modeSchema, readLinesSchema, renderHandoff, timeoutMsSchema } from "./shared.ts";

export const collectOptionsSchema = z.object({
  receipt: z
    .array(z.string().check(z.regex(RECEIPT_TOKEN_PATTERN, "must be a receipt token (herdr-receipt-v1.<uuid>)")))
    .check(z.minLength(1), z.maxLength(8), z.describe("receipt tokens from ask/ask-many (1-8)")),
  mode: modeSchema,
  timeoutMs: timeoutMsSchema,
  readLines: readLinesSchema,
});

export type CollectOptions = z.output<typeof collectOptionsSchema>;

const runCollect = async (options: CollectOptions, deps: DepsOf<"herdr">): Promise<HandoffOutput> =>
  collectReceipts(deps, options.receipt, options.mode, options.timeoutMs, options.readLines);

export default defineCommand({
  name: "herdr-agent-control collect",
  summary: "wait for and return the results of delivered receipts; never sends anything",
  description:
    "For a pending receipt: waits for the first settled state (idle, done, blocked) with state_change_seq strictly greater " +
    "than the cursor at which the agent was seen working, reads its output, then re-reads identity and cursor: if the " +
    "agent moved on meanwhile the result is refused (cursor_superseded), never mislabelled. A completed receipt is replayed " +
    "(after a crash of the caller) only while its exact identity and settled cursor are still current; once a later turn " +
    "ran, the replay is refused with error cursor_superseded and no output. A reserved receipt is reported as " +
    "delivery_ambiguous (or failed identity_changed once its agent is gone).\n" +
    RESULT_STATES,
  schema: collectOptionsSchema,
  writes: "the state of each receipt that completes or fails; nothing is typed into any pane.",
  output: HANDOFF_OUTPUT,
  errors: authorityErrorsWith("IDENTITY_CHANGED"),
  env: CONTROL_ENV,
  examples: [
    "herdr-agent-control collect --receipt herdr-receipt-v1.0b6e4d9e-1f1a-4c35-9d0e-5d7f0f3c2a11",
    'herdr-agent-control collect --receipt "$R1" --receipt "$R2" --mode first --timeout-ms 300000 --json',
  ],
  needs: { deps: "herdr" },
  run: runCollect,
  render: renderHandoff,
});
