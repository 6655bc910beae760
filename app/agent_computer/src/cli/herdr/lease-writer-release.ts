import * as z from "zod/mini";
import { closeView } from "../../domain/herdr/inventory.ts";
import { releaseWriter } from "../../domain/herdr/writer.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { oneLine } from "../kernel/one-line.ts";
import { CLOSE_OUTPUT, CLOSE_RULES, closeErrors } from "./lease-docs.ts";
import { BINDING_ENV, commitSchema, leaseIdSchema, readLinesSchema, seqSchema, sha256Schema } from "./shared.ts";

export const writerReleaseOptionsSchema = z.object({
  leaseId: leaseIdSchema.check(z.describe("the writer lease to release")),
  expectedSeq: seqSchema.check(z.describe("the writer's state_change_seq you last observed")),
  expectedHead: commitSchema.check(z.describe("HEAD of the worktree as you just observed it")),
  expectedStatusSha256: sha256Schema.check(z.describe("status digest of the worktree as you just observed it")),
  checkpointRef: oneLine(500, {
    min: 1,
    describe: "durable, content-free checkpoint: branch, HEAD, status digest, tests, blockers, next step",
  }),
  checkpointSha256: sha256Schema.check(z.describe("SHA-256 of that checkpoint")),
  verificationId: z
    .optional(z.string().check(z.regex(/^vrf_[0-9a-f]{32}$/, "must be a verification id (vrf_…)")))
    .check(z.describe("a passed `writer verify` receipt of this lease on exactly --expected-head, recorded with the checkpoint")),
  readLines: readLinesSchema,
});
export type WriterReleaseOptions = z.output<typeof writerReleaseOptionsSchema>;

const runWriterRelease = async (options: WriterReleaseOptions, deps: DepsOf<"herdr">) =>
  closeView(await releaseWriter(deps, options));

export default defineCommand({
  name: "herdr-lease-cli writer release",
  summary: "close a writer's pane after a durable checkpoint; branch, worktree and bytes stay as they are",
  description:
    "Needs controller authority and a writer lease of this controller. The worktree must still be on the leased branch at " +
    `--expected-head with --expected-status-sha256 (Git is re-read). ${CLOSE_RULES} Release never commits, stashes, ` +
    "resets, cleans, removes or edits anything in Git: only the pane closes. --verification-id cites a passed " +
    "verification (writer verify) of this lease on --expected-head; the lease records it. The claim (shared store) moves releasing -> " +
    "released, freeing branch, worktree and scopes; if the close fails it stays held (release_failed) for inspection.",
  schema: writerReleaseOptionsSchema,
  writes: "the lease and claim states, the checkpoint reference and digest; closes one Herdr pane.",
  output: CLOSE_OUTPUT,
  errors: closeErrors("WRITER_ADMISSION_REFUSED"),
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli writer release --lease-id lease_7a1e9a1b2c3d4e5f60718293a4b5c6d7 --expected-seq 240 " +
      "--expected-head $(git -C /srv/wt/t7 rev-parse HEAD) " +
      "--expected-status-sha256 $(git -C /srv/wt/t7 status --porcelain=v1 --untracked-files=all | sha256sum | cut -c1-64) " +
      "--checkpoint-ref acme/api#7-c3 --checkpoint-sha256 $(sha256sum < checkpoint-c3.md | cut -c1-64)",
  ],
  needs: { deps: "herdr" },
  run: runWriterRelease,
  render: (r) => `${r.lease.agent_name}: ${r.lease.state} at seq ${r.observed_seq}; branch, worktree and files untouched`,
});
