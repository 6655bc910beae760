import * as z from "zod/mini";
import { closeView } from "../../domain/herdr/inventory.ts";
import { closeReviewer } from "../../domain/herdr/reviewer.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { CLOSE_OUTPUT, CLOSE_RULES, closeErrors } from "./lease-docs.ts";
import { BINDING_ENV, leaseIdSchema, readLinesSchema, seqSchema } from "./shared.ts";

export const reviewerCloseOptionsSchema = z.object({
  leaseId: leaseIdSchema.check(z.describe("the reviewer lease to close")),
  expectedSeq: seqSchema.check(z.describe("the reviewer's state_change_seq you last observed")),
  readLines: readLinesSchema,
});
export type ReviewerCloseOptions = z.output<typeof reviewerCloseOptionsSchema>;

const runReviewerClose = async (options: ReviewerCloseOptions, deps: DepsOf<"herdr">) =>
  closeView(await closeReviewer(deps, options));

export default defineCommand({
  name: "herdr-lease-cli reviewer close",
  summary: "close a leased reviewer's pane, only through its own lease and only when it is settled",
  description: `Needs controller authority and a reviewer lease of this controller. ${CLOSE_RULES}`,
  schema: reviewerCloseOptionsSchema,
  writes: "the lease state (closing, then closed or close_failed) and the SHA-256 of the captured output; closes one Herdr pane.",
  output: CLOSE_OUTPUT,
  errors: closeErrors(),
  env: BINDING_ENV,
  examples: ["herdr-lease-cli reviewer close --lease-id lease_0f3c9a1b2c3d4e5f60718293a4b5c6d7 --expected-seq 118 --json"],
  needs: { deps: "herdr" },
  run: runReviewerClose,
  render: (r) => `${r.lease.agent_name}: ${r.lease.state} at seq ${r.observed_seq} (captured output sha256 ${r.capture_sha256})`,
});
