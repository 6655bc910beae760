import { z } from "zod";
import { type ReconcileResult, reconcileLeases } from "../../domain/herdr/reconcile.ts";
import { defineCommand } from "../kernel/command.ts";
import type { CommandContext } from "../kernel/context.ts";
import { buildHerdrDeps } from "../kernel/deps.ts";
import { AUTHORITY_ERRORS, BINDING_ENV } from "./shared.ts";

export const reconcileOptionsSchema = z.object({
  dryRun: z.boolean().default(false).describe("report what would be ended, change nothing"),
});
export type ReconcileOptions = z.output<typeof reconcileOptionsSchema>;

const runReconcile = async (options: ReconcileOptions, ctx: CommandContext): Promise<ReconcileResult> =>
  reconcileLeases(await buildHerdrDeps(ctx), options.dryRun);

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
  summary: "end this controller's leases whose pane is gone (as lost), then release their reservations",
  description:
    "Needs controller authority. For every held reviewer, writer and adopted lease of this controller on this host, the " +
    "exact pane is read (`herdr pane get`). Only Herdr's answer pane_not_found counts as gone (pane ids are never reused): " +
    "the lease then ends as lost, and only after that are its reservations released (a writer's claim on branch, worktree " +
    "and scopes in the shared store; receipts still reserved or pending for it fail as identity_changed). A pane that " +
    "exists is kept, whatever runs in it; a Herdr read that fails (server down or restarting, timeout, any other error) is " +
    "reported as unknown and changes nothing. Idempotent: a lost lease is not held any more, and a run cut short between " +
    "ending a lease and releasing its reservations is finished by the next run. --dry-run reports would_lose instead.",
  schema: reconcileOptionsSchema,
  writes: "lease states (lost), writer claims (lost) and receipts (failed) of leases whose pane is gone; nothing with --dry-run.",
  output:
    '{"controller_id","dry_run","leases":[{"lease_id","type","agent_name","pane_id","state_before","outcome":"lost|would_lose|' +
    'kept|unknown","evidence","released":{"writer_claim","receipts":[]}}]}',
  errors: [...AUTHORITY_ERRORS, "RESERVATION_BUSY", "INTERNAL"],
  env: BINDING_ENV,
  examples: ["herdr-lease-cli reconcile --dry-run", "herdr-lease-cli reconcile --json"],
  run: runReconcile,
  render,
});
