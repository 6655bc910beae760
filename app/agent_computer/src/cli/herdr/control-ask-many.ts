import * as z from "zod/mini";
import { HERDR_AGENT_NAME_PATTERN } from "../../adapters/herdr/client.ts";
import { handoff } from "../../domain/herdr/handoff.ts";
import type { HandoffOutput } from "../../domain/herdr/handoff-results.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { HANDOFF_ERRORS, HANDOFF_OUTPUT, HANDOFF_WRITES, RESULT_STATES } from "./handoff-docs.ts";
import { CONTROL_ENV, messageProblem, modeSchema, readLinesSchema, renderHandoff, timeoutMsSchema } from "./shared.ts";

const requestSchema = z.pipe(
  z.string(),
  z.transform((pair: string, issue) => {
    const at = pair.indexOf("=");
    const target = at > 0 ? pair.slice(0, at) : "";
    const message = pair.slice(at + 1);
    const problem = !HERDR_AGENT_NAME_PATTERN.test(target)
      ? "must be TARGET=MESSAGE with a leased agent name"
      : messageProblem(message);
    if (problem) {
      issue.issues.push({ code: "custom", message: problem, input: pair });
      return z.NEVER;
    }
    return { target, message };
  }),
);

export const askManyOptionsSchema = z.object({
  request: z.array(requestSchema).check(
    z.minLength(1),
    z.maxLength(8),
    z.refine((list) => new Set(list.map((r) => r.target)).size === list.length, "each TARGET may appear once"),
    z.describe("TARGET=MESSAGE: one request per leased agent, 1-8 of them; commas stay part of the message"),
  ),
  mode: modeSchema,
  timeoutMs: timeoutMsSchema,
  readLines: readLinesSchema,
});

export type AskManyOptions = z.output<typeof askManyOptionsSchema>;

const runAskMany = async (options: AskManyOptions, deps: DepsOf<"herdr">): Promise<HandoffOutput> =>
  handoff(deps, options.request, options.mode, options.timeoutMs, options.readLines);

export default defineCommand({
  name: "herdr-agent-control ask-many",
  summary: "send one request to each of several leased agents, all admitted before any is sent",
  description:
    "Every target is validated under one fence check while the lease and receipt reservations are held: each must be held " +
    "by an active reviewer or writer lease of this controller, have no reserved or pending receipt, and be exactly the " +
    "leased agent, idle or done. If any target fails, nothing is sent. Then each request is typed and confirmed as in ask. " +
    "--mode all waits for every result and returns them in request order; --mode first returns at the first completed " +
    "result: only the losing waits of this command end (those agents keep working) and their receipts come back in " +
    "pending_receipts for collect.\n" +
    RESULT_STATES,
  schema: askManyOptionsSchema,
  flags: { request: { placeholder: "<target=message>", commaList: false } },
  writes: HANDOFF_WRITES,
  output: HANDOFF_OUTPUT,
  errors: HANDOFF_ERRORS,
  env: CONTROL_ENV,
  examples: [
    "herdr-agent-control ask-many --request rev-a='Review the API diff' --request rev-b='Review the docs diff' --json",
    "herdr-agent-control ask-many --request w1='Run the failing test, report the cause' --request w2='Same, on branch b' --mode first",
  ],
  needs: { deps: "herdr" },
  run: runAskMany,
  render: renderHandoff,
});
