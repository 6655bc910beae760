import * as z from "zod/mini";
import { type ReconcileResult, reconcileLeases } from "../../domain/herdr/reconcile.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { authorityErrorsWith, BINDING_ENV, dryRunOf } from "./shared.ts";

export const reconcileOptionsSchema = z.object({
  apply: z
    ._default(z.boolean(), false)
    .check(z.describe("end the leases found gone and release their reservations (default: a dry run)")),
  dryRun: z._default(z.boolean(), false).check(z.describe("report what would be ended, change nothing (the default)")),
});
export type ReconcileOptions = z.output<typeof reconcileOptionsSchema>;

const runReconcile = async (options: ReconcileOptions, deps: DepsOf<"herdr">): Promise<ReconcileResult> =>
  reconcileLeases(deps, dryRunOf(options));

const render = (r: ReconcileResult): string => {
  const lines = [`controller ${r.controller_id}: ${r.leases.length} held lease(s) checked${r.dry_run ? " (dry run)" : ""}`];
  for (const lease of r.leases) {
    const released = [
      ...(lease.released.writer_claim ? ["writer claim"] : []),
      ...(lease.released.receipts.length > 0 ? [`receipts ${lease.released.receipts.join(" ")}`] : []),
    ];
    lines.push(`  ${lease.type} ${lease.agent_name} (${lease.lease_id}, pane ${lease.pane_id ?? "-"}): ${lease.outcome}`);
    lines.push(`    ${lease.evidence}${released.length > 0 ? `; released ${released.join(", ")}` : ""}`);
  }
  return lines.join("\n");
};

export default defineCommand({
  name: "herdr-lease-cli reconcile",
  summary: "list (default) or, with --apply, end this controller's leases whose agent is gone, releasing their reservations",
  description:
    "Needs controller authority. A dry run unless --apply is given (--dry-run says so explicitly). For every held reviewer, " +
    "writer and adopted lease of this controller on this host, the exact pane is read (`herdr pane get`, then `agent " +
    "get`). Gone is Herdr's answer pane_not_found (pane ids are never reused), or a pane that runs no agent at all: the " +
    "agent exited, or a cold restart of Herdr restored the pane without it (a pane under a new Herdr server is given up " +
    "to 3 s to show its agent again, as after a handoff). With --apply the lease then ends as lost, and only after that " +
    "are its reservations released (a writer's claim on branch, worktree and scopes in the shared store; receipts still " +
    "reserved or pending for it fail as identity_changed); without it the lease is reported would_lose. A pane running " +
    "an agent is kept, whichever agent it is; a Herdr read that fails, or a lease made under another Herdr server " +
    "(socket) than the one this command reaches, is reported as unknown and changes nothing. Idempotent: a lost lease is " +
    "not held any more, and a run cut short between ending a lease and releasing its reservations is finished by the " +
    "next --apply.",
  schema: reconcileOptionsSchema,
  writes: "with --apply only: lease states (lost), writer claims (lost) and receipts (failed) of leases whose agent is gone.",
  output:
    '{"controller_id","dry_run","leases":[{"lease_id","type","agent_name","pane_id","state_before","outcome":"lost|would_lose|' +
    'kept|unknown","evidence","released":{"writer_claim","receipts":[]}}]}',
  errors: authorityErrorsWith(),
  env: BINDING_ENV,
  examples: ["herdr-lease-cli reconcile", "herdr-lease-cli reconcile --apply --json"],
  needs: { deps: "herdr" },
  run: runReconcile,
  render,
});
