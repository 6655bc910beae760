import * as z from "zod/mini";
import { type SweepResult, sweepReviewers } from "../../domain/herdr/reviewer-sweep.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { CLOSE_RULES } from "./lease-docs.ts";
import { AUTHORITY_ERRORS, BINDING_ENV, dryRunOf, readLinesSchema } from "./shared.ts";

export const reviewerSweepOptionsSchema = z.object({
  apply: z._default(z.boolean(), false).check(z.describe("close the reviewers whose review is over (default: a dry run)")),
  dryRun: z._default(z.boolean(), false).check(z.describe("list exactly what would be closed, close nothing (the default)")),
  readLines: readLinesSchema.check(z.describe("lines of each reviewer's output captured (and hashed) before its close")),
});
export type ReviewerSweepOptions = z.output<typeof reviewerSweepOptionsSchema>;

const runSweep = async (options: ReviewerSweepOptions, deps: DepsOf<"herdr">): Promise<SweepResult> =>
  sweepReviewers(deps, { dryRun: dryRunOf(options), readLines: options.readLines });

const render = (r: SweepResult): string =>
  [
    `controller ${r.controller_id}: ${r.reviewers.length} active reviewer lease(s)${r.dry_run ? " (dry run)" : ""}`,
    ...r.reviewers.map(
      (entry) => `  ${entry.agent_name} (${entry.lease_id}, pane ${entry.pane_id ?? "-"}): ${entry.outcome} · ${entry.reason}`,
    ),
  ].join("\n");

export default defineCommand({
  name: "herdr-lease-cli reviewer sweep",
  summary: "list (default) or, with --apply, close every reviewer pane of this controller whose review is over",
  description:
    "Needs controller authority. A dry run unless --apply is given (--dry-run says so explicitly). Looks at every active reviewer lease of this controller on this host. A review is over " +
    "when no receipt to the reviewer is reserved or pending (its result was collected, or its request abandoned) and the " +
    "exact leased agent is idle or done now; it is then closed as `reviewer close` would at the cursor observed now. " +
    `${CLOSE_RULES} Working, blocked, replaced or vanished reviewers, and any whose Herdr read fails, are preserved with ` +
    "the reason; one whose pane is gone or runs no agent is not closed here: herdr-lease-cli reconcile --apply ends its " +
    "lease as lost. A lease made under another Herdr server (socket) is preserved untouched. A close refused on its own " +
    "(cursor moved, identity changed) preserves that reviewer and the sweep goes on; a lost fence stops the sweep. " +
    "Without --apply nothing is closed and exactly the reviewers a sweep would close at that moment are listed as would_close.",
  schema: reviewerSweepOptionsSchema,
  writes:
    "with --apply only, for each closed reviewer: its lease state (closing, then closed or close_failed) and capture SHA-256; closes its pane.",
  output:
    '{"controller_id","dry_run","reviewers":[{"lease_id","agent_name","pane_id","outcome":"closed|would_close|preserved",' +
    '"reason","observed_status"?,"observed_seq"?,"capture_sha256"?}]}',
  errors: [...AUTHORITY_ERRORS, "INTERNAL"],
  env: BINDING_ENV,
  examples: ["herdr-lease-cli reviewer sweep", "herdr-lease-cli reviewer sweep --apply --json"],
  needs: { deps: "herdr" },
  run: runSweep,
  render,
});
