import * as z from "zod/mini";
import { type WaitAnyResult, waitAny } from "../../domain/herdr/wait-any.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { boundedInt, readLinesSchema } from "./shared.ts";

const workerSchema = z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9:_-]{0,63}$/, "must be an agent name or pane id"));

export const waitAnyOptionsSchema = z.object({
  worker: z.array(workerSchema).check(z.minLength(1), z.maxLength(16), z.describe("agent names or pane ids to watch (1-16)")),
  afterSeq: z
    .pipe(
      z._default(
        z
          .array(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9:_-]{0,63}=\d{1,15}$/, "must be WORKER=N")))
          .check(z.maxLength(16)),
        [],
      ),
      z.transform(
        (pairs: string[]) =>
          new Map(pairs.map((pair) => [pair.slice(0, pair.lastIndexOf("=")), Number(pair.slice(pair.lastIndexOf("=") + 1))])),
      ),
    )
    .check(z.describe("WORKER=N: accept only a state_change_seq greater than N for that worker (its last seen cursor)")),
  timeoutMs: boundedInt(1, 3_600_000, 600_000).check(z.describe("milliseconds to wait")),
  readLines: readLinesSchema,
});
export type WaitAnyOptions = z.output<typeof waitAnyOptionsSchema>;

const runWaitAny = async (options: WaitAnyOptions, deps: DepsOf<"herdr">): Promise<WaitAnyResult> =>
  waitAny(deps, {
    workers: options.worker,
    afterSeq: options.afterSeq,
    timeoutMs: options.timeoutMs,
    readLines: options.readLines,
  });

export default defineCommand({
  name: "herdr-lease-cli wait-any",
  summary: "wait for the first of several workers to end a turn (idle, done or blocked) and return its output",
  description:
    "Changes nothing and needs no lease. Each worker is pinned to the agent found now (pane, name, kind, cwd). The " +
    "first to be idle, done or blocked with state_change_seq greater than its --after-seq wins; without --after-seq a " +
    "worker that is settled already wins at once. Give each worker the cursor you last saw, so an old terminal state is " +
    "not accepted (cursors are global to Herdr: only > is meaningful). Its output is captured and identity and cursor " +
    "re-read; the other waits end, the workers are not prompted. The capture is Herdr's recent read (--read-lines): on " +
    "an idle alternate-screen agent Herdr scrolls it with mouse-wheel input and back, up to ~20 s. Output is untrusted " +
    "text. A Herdr handoff or restart (new terminal ids, the sequence back at 0) is ridden through: a turn under way " +
    "ends at the new server's first settled status, a settled worker's restored status is not a turn; an --after-seq " +
    "above the worker's current cursor is from an earlier Herdr server and is refused (CONFLICT) with the cursor to use.",
  schema: waitAnyOptionsSchema,
  flags: { worker: { placeholder: "<name-or-pane>" }, afterSeq: { placeholder: "<worker=n>" } },
  writes: "nothing.",
  output:
    '{"event":"agent_settled","target","pane_id","name","kind","cwd","status":"idle|done|blocked","state_change_seq","output"}',
  errors: ["INVALID_INPUT", "CONFLICT", "NOT_FOUND", "IDENTITY_CHANGED", "TIMEOUT", "UNAVAILABLE", "HERDR_REFUSED", "INTERNAL"],
  env: ["HERDR_SOCKET_PATH"],
  examples: [
    "herdr-lease-cli wait-any --worker rev-a --worker rev-b --after-seq rev-a=118 --after-seq rev-b=121 --json",
    "herdr-lease-cli wait-any --worker w1:p4 --timeout-ms 60000",
  ],
  needs: { deps: "herdr", usesStore: () => false },
  run: runWaitAny,
  render: (r) =>
    [
      `${r.target} (${r.kind}, pane ${r.pane_id}): ${r.status} at seq ${r.state_change_seq}`,
      r.output.replace(/^/gm, "  | "),
    ].join("\n"),
});
