import * as z from "zod/mini";
import { handoff } from "../../domain/herdr/handoff.ts";
import type { HandoffOutput } from "../../domain/herdr/handoff-results.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { HANDOFF_ERRORS, HANDOFF_OUTPUT, HANDOFF_WRITES, RESULT_STATES } from "./handoff-docs.ts";
import { agentNameSchema, CONTROL_ENV, messageProblem, readLinesSchema, renderHandoff, timeoutMsSchema } from "./shared.ts";

export const askOptionsSchema = z.object({
  target: agentNameSchema.check(z.describe("the leased agent's name (a reviewer or writer lease of this controller)")),
  message: z.string().check(
    z.superRefine((text, issue) => {
      const problem = messageProblem(text);
      if (problem) issue.addIssue({ code: "custom", message: problem });
    }),
    z.describe(
      "the request, every word after --, typed into the agent as one prompt, verbatim (not '--session' or '--session=…', no control characters)",
    ),
  ),
  timeoutMs: timeoutMsSchema,
  readLines: readLinesSchema,
});

export type AskOptions = z.output<typeof askOptionsSchema>;

const runAsk = async (options: AskOptions, deps: DepsOf<"herdr">): Promise<HandoffOutput> =>
  handoff(deps, [{ target: options.target, message: options.message }], "all", options.timeoutMs, options.readLines);

export default defineCommand({
  name: "herdr-agent-control ask",
  summary: "send one request to one leased agent and wait for its result (a batch of one)",
  description:
    "Admits the request only if TARGET is held by an active reviewer or writer lease of this controller, has no reserved or " +
    "pending receipt, and is exactly the leased agent (pane, name, kind, cwd; not the terminal id, which a Herdr handoff changes) in state idle or done (blocked waits " +
    "for a human and is refused). A durable receipt records its state_change_seq, the fence is checked again, then the " +
    "request is typed; ask waits until Herdr shows that agent working at a greater cursor (cursors are global to Herdr: " +
    "only > is meaningful), then for the first settled state after it, and returns the agent's output. If --timeout-ms " +
    "ends first, the receipt stays pending: collect it later.\n" +
    RESULT_STATES,
  schema: askOptionsSchema,
  args: [{ key: "target", name: "TARGET" }],
  rest: { key: "message", name: "MESSAGE" },
  writes: HANDOFF_WRITES,
  output: HANDOFF_OUTPUT,
  errors: HANDOFF_ERRORS,
  env: CONTROL_ENV,
  examples: [
    "herdr-agent-control ask reviewer-1 -- 'Review PR 42 at its head against docs/spec.md; reply APPROVE or a defect list.'",
    "herdr-agent-control ask writer-api --timeout-ms 600000 --json -- Implement ticket 7 within your scopes, then stop.",
  ],
  needs: { deps: "herdr" },
  run: runAsk,
  render: renderHandoff,
});
