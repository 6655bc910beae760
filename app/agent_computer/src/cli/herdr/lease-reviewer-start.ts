import * as z from "zod/mini";
import { leaseView } from "../../domain/herdr/inventory.ts";
import { EFFORTS, startReviewer } from "../../domain/herdr/reviewer.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { oneLine } from "../kernel/one-line.ts";
import { LEASE_OUTPUT } from "./lease-docs.ts";
import {
  agentNameSchema,
  authorityErrorsWith,
  BINDING_ENV,
  busyWindowSchema,
  kindSchema,
  renderLease,
  startTimeoutSchema,
} from "./shared.ts";

export const reviewerStartOptionsSchema = z.object({
  name: agentNameSchema.check(z.describe("the reviewer agent's name (unique among held leases)")),
  kind: kindSchema.check(z.describe("the agent kind Herdr starts")),
  cwd: z
    .string()
    .check(
      z.minLength(1),
      z.describe(
        "absolute path of the ticket worktree; the new tab is rooted there (symlinks and a trailing slash are resolved: the lease records the directory itself)",
      ),
    ),
  purpose: oneLine(200, { min: 1, describe: "one line: what this reviewer is for" }),
  startTimeoutMs: startTimeoutSchema,
  busyWindowMs: busyWindowSchema,
  nativeArgs: z
    ._default(z.string(), "")
    .check(
      z.describe(
        `claude only: --model <model> and/or --effort <${EFFORTS.join("|")}>, passed to Claude's own CLI; other kinds take none`,
      ),
    ),
});
export type ReviewerStartOptions = z.output<typeof reviewerStartOptionsSchema>;

const runReviewerStart = async (options: ReviewerStartOptions, deps: DepsOf<"herdr">) =>
  leaseView(
    await startReviewer(
      deps,
      options,
      options.nativeArgs.split(/\s+/).filter((word) => word !== ""),
    ),
  );

export default defineCommand({
  name: "herdr-lease-cli reviewer start",
  summary: "start a leased reviewer agent in a new, unfocused tab rooted at the ticket worktree",
  description:
    "Needs controller authority. Records the lease (provisioning) before anything exists, creates a tab in the " +
    "controller's workspace rooted at --cwd, starts --kind named --name in its root pane and verifies the exact agent " +
    "(pane, name, kind, cwd) before the lease becomes active. A new tab's shell may not accept an agent at once: only " +
    "Herdr's agent_pane_busy on that same pane is retried, every 100 ms within --busy-window-ms; any other failure closes " +
    "exactly the pane this command created (lease failed_closed, or orphaned when even that fails: it then stays held " +
    "for inspection). An agent that comes up on a screen waiting for a human (Herdr 0.8.2+ agent_not_ready: trust " +
    "this directory, sign in) is given until --start-timeout-ms for someone to answer it on its screen in Herdr; the " +
    "error then says what to do. Only this lease can close the reviewer (reviewer close).",
  schema: reviewerStartOptionsSchema,
  rest: { key: "nativeArgs", name: "NATIVE_ARGS" },
  writes: "a reviewer lease in this host's state dir; a Herdr tab and agent.",
  output: LEASE_OUTPUT,
  errors: authorityErrorsWith("CONFLICT", "IDENTITY_CHANGED"),
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli reviewer start --name rev-pr42 --kind claude --cwd /srv/wt/pr42 --purpose 'review PR 42' -- --model opus --effort high",
    "herdr-lease-cli reviewer start --name rev-docs --kind codex --cwd /srv/wt/pr42 --purpose 'docs review' --json",
  ],
  needs: { deps: "herdr" },
  run: runReviewerStart,
  render: renderLease,
});
