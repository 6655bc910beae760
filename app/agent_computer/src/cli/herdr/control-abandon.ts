import * as z from "zod/mini";
import { type AbandonResult, abandonReceipt } from "../../domain/herdr/abandon.ts";
import { RECEIPT_TOKEN_PATTERN } from "../../domain/herdr/receipts.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { authorityErrorsWith, CONTROL_ENV } from "./shared.ts";

export const abandonOptionsSchema = z.object({
  receipt: z
    .string()
    .check(
      z.regex(RECEIPT_TOKEN_PATTERN, "must be a receipt token (herdr-receipt-v1.<uuid>)"),
      z.describe("the receipt to abandon"),
    ),
});

export type AbandonOptions = z.output<typeof abandonOptionsSchema>;

const runAbandon = async (options: AbandonOptions, deps: DepsOf<"herdr">): Promise<AbandonResult> =>
  abandonReceipt(deps, options.receipt);

export default defineCommand({
  name: "herdr-agent-control abandon",
  summary: "release the barrier of a reserved or pending receipt once its agent is observed settled",
  description:
    "Marks the receipt failed/abandoned so its target accepts requests again. It needs controller authority and a fresh " +
    "observation that the exact leased agent (pane, name, kind, cwd; not the terminal id, which a Herdr handoff changes) is idle, done or blocked; while the agent " +
    "works it is refused. It never stops, interrupts or closes anything and drops any result the receipt would have had. " +
    "Use it after inspecting an ambiguous (reserved) delivery; prefer collect for pending ones. A read cut by a Herdr " +
    "server restart is made again for up to 30 s.",
  schema: abandonOptionsSchema,
  writes: "the receipt's state (failed, failure abandoned).",
  output: '{"receipt","target","state":"failed","failure":"abandoned","observed_status","observed_seq"}',
  errors: authorityErrorsWith("CONFLICT", "IDENTITY_CHANGED", "AGENT_NOT_SETTLED"),
  env: CONTROL_ENV,
  examples: ["herdr-agent-control abandon --receipt herdr-receipt-v1.0b6e4d9e-1f1a-4c35-9d0e-5d7f0f3c2a11 --json"],
  needs: { deps: "herdr" },
  run: runAbandon,
  render: (r: AbandonResult) =>
    `${r.receipt} (${r.target}): abandoned; the agent was ${r.observed_status} at seq ${r.observed_seq}`,
});
