import * as z from "zod/mini";
import { leaseView } from "../../domain/herdr/inventory.ts";
import { startWriter } from "../../domain/herdr/writer.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { oneLine } from "../kernel/one-line.ts";
import { LEASE_OUTPUT } from "./lease-docs.ts";
import {
  agentNameSchema,
  authorityErrorsWith,
  BINDING_ENV,
  busyWindowSchema,
  commitSchema,
  kindSchema,
  renderLease,
  sha256Schema,
  startTimeoutSchema,
} from "./shared.ts";

const branchSchema = z.string().check(z.regex(/^[A-Za-z0-9._/-]{1,200}$/, "must be a branch name"));

export const writerStartOptionsSchema = z.object({
  name: agentNameSchema.check(z.describe("the writer agent's name (unique among held leases)")),
  kind: kindSchema.check(z.describe("the agent kind Herdr starts")),
  purpose: oneLine(200, { min: 1, describe: "one line: what this writer is for" }),
  ticketRef: oneLine(500, { min: 1, describe: "durable reference to the accepted ticket" }),
  authorityRef: oneLine(500, { min: 1, describe: "durable reference to what authorises this writer" }),
  authoritySha256: sha256Schema.check(z.describe("SHA-256 of that authority as you accepted it")),
  worktree: z.string().check(z.minLength(1), z.describe("absolute root of a linked Git worktree (git worktree add)")),
  branch: branchSchema.check(z.describe("the branch checked out there; must not be protected")),
  baseCommit: commitSchema.check(z.describe("full id of the accepted base commit; must be an ancestor of HEAD")),
  expectedHead: commitSchema.check(z.describe("full id HEAD must be (git -C WORKTREE rev-parse HEAD)")),
  expectedStatusSha256: sha256Schema.check(z.describe("sha256sum of `git status --porcelain=v1 --untracked-files=all` there")),
  ownedScope: z
    .array(z.string())
    .check(z.minLength(1), z.maxLength(500), z.describe("repo-relative literal paths this writer owns (no globs, no ..)")),
  blockedScope: z
    .array(z.string())
    .check(
      z.minLength(1),
      z.maxLength(500),
      z.describe("literal paths this writer must not change and no concurrent writer may own"),
    ),
  protectedBranch: z
    .array(branchSchema)
    .check(z.minLength(1), z.maxLength(20), z.describe("branches no writer may work on (at least the default branch)")),
  startTimeoutMs: startTimeoutSchema,
  busyWindowMs: busyWindowSchema,
});
export type WriterStartOptions = z.output<typeof writerStartOptionsSchema>;

const runWriterStart = async (
  { ownedScope, blockedScope, protectedBranch, ...options }: WriterStartOptions,
  deps: DepsOf<"herdr">,
) =>
  leaseView(
    await startWriter(deps, {
      ...options,
      ownedScopes: ownedScope,
      blockedScopes: blockedScope,
      protectedBranches: protectedBranch,
      cwd: options.worktree,
    }),
  );

export default defineCommand({
  name: "herdr-lease-cli writer start",
  summary: "admit a writer into a linked Git worktree and start it in a new tab under an exclusive scope lease",
  description:
    "Needs controller authority. Git is re-read, never trusted from the flags: --worktree is an absolute, symlink-free " +
    "root of a LINKED worktree (never the main checkout) on exactly --branch (not detached, not a --protected-branch), " +
    "at HEAD --expected-head, --base-commit an ancestor of HEAD, status digest --expected-status-sha256. Scopes are " +
    "literal repo-relative paths (no globs, no .., not absolute); a writer's owned and blocked scopes must not overlap. " +
    "No Herdr agent may already work in the worktree. Then, in one transaction of the store every host shares, no held " +
    "writer lease of the same repository (same root commits) may hold the branch, the worktree or a clashing scope " +
    "(owned vs owned, owned vs blocked either way), and the owned scopes become an exclusive file reservation " +
    "(agent-reserve-cli --help) no agent's may overlap. The claim is recorded before the tab and agent exist (only " +
    "agent_pane_busy is retried); a failed start that cannot close its pane leaves the claim held (orphaned) for " +
    "inspection. The lease is no filesystem sandbox: compare the final diff with the scopes before integrating.",
  schema: writerStartOptionsSchema,
  writes: "a writer claim (shared store) and lease (this host); a Herdr tab and agent. Git is only read.",
  output: LEASE_OUTPUT,
  errors: authorityErrorsWith("WRITER_ADMISSION_REFUSED", "SCOPE_CONFLICT", "CONFLICT", "IDENTITY_CHANGED"),
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli writer start --name w-api --kind codex --purpose 'ticket 7' --ticket-ref acme/api#7 --authority-ref acme/api#7 " +
      "--authority-sha256 $(sha256sum < issue7.md | cut -c1-64) --worktree /srv/wt/t7 --branch t7-retry " +
      "--base-commit $(git -C /srv/wt/t7 merge-base main HEAD) --expected-head $(git -C /srv/wt/t7 rev-parse HEAD) " +
      "--expected-status-sha256 $(git -C /srv/wt/t7 status --porcelain=v1 --untracked-files=all | sha256sum | cut -c1-64) " +
      "--owned-scope src/retry --blocked-scope migrations --protected-branch main",
  ],
  needs: { deps: "herdr" },
  run: runWriterStart,
  render: renderLease,
});
