import * as z from "zod/mini";
import { type TakeoverView, takeoverController } from "../../domain/herdr/controller-takeover.ts";
import { LEASE_REF_PATTERN } from "../../domain/herdr/lease-ref.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { authorityOptionsSchema, bindingErrors, renderController, TAKEOVER_OUTPUT } from "./lease-controller-options.ts";
import { BINDING_ENV } from "./shared.ts";

export const takeoverOptionsSchema = z.object({
  expectedLease: z
    .string()
    .check(
      z.regex(LEASE_REF_PATTERN, "must be a controller lease ref <controller_id>:g<generation>, e.g. proj.ctl:g3"),
      z.describe("the lease you saw and mean to replace (lease_ref from herdr-agent-control status or controller acquire)"),
    ),
  ...authorityOptionsSchema.shape,
});
export type TakeoverOptions = z.output<typeof takeoverOptionsSchema>;

const runTakeover = async (options: TakeoverOptions, deps: DepsOf<"herdr">): Promise<TakeoverView> =>
  takeoverController(deps, options);

export default defineCommand({
  name: "herdr-lease-cli controller takeover",
  summary: "take over the controller lease of a holder that is gone, naming the exact lease replaced",
  description:
    "For a new coordinator (a named agent in pane HERDR_PANE_ID, as for acquire) when the agent holding the controller " +
    "lease of AGENT_CONTROL_CONTROLLER_ID is gone. Succeeds only when the current lease is exactly --expected-lease AND " +
    "its holder is gone: the lease was released, or it has expired AND (held from this host) its bound process has ended " +
    "(pid gone or reused, or another boot) or, asked of the Herdr server it was bound under, the holder's pane is gone " +
    "(pane_not_found), runs no such agent, or the agent is done or blocked (evidence pane_gone, agent_gone, done, blocked, " +
    "process_gone). A working or idle holder is kept even after expiry, and an unexpired lease always (CONTROLLER_HELD); an " +
    "expired lease held from another host goes by expiry alone (evidence expired). A holder bound under another Herdr " +
    "server (socket) cannot be observed from here, and a Herdr read that fails is no evidence: both refuse and change " +
    "nothing. A Herdr handoff (new terminal ids) does not make a holder gone. The swap is a compare-and-swap in one store " +
    "transaction on that exact lease (same lease, state and expiry): of two takeovers of one predecessor exactly one " +
    "wins; the other gets CONTROLLER_LEASE_CHANGED naming the current lease, and re-reads. A new lease id and fence are " +
    "minted (generation + 1) and bound to this caller as acquire does. The old fence is refused from then on by every " +
    "mutating command (CONTROLLER_FENCED, also from the old holder's pane); its reviewer, writer and adopted leases and " +
    "receipts stay with the controller id, so the new holder inherits them.",
  schema: takeoverOptionsSchema,
  writes: "the controller lease row (shared store); this host's binding and 0600 credential files.",
  output: TAKEOVER_OUTPUT,
  errors: bindingErrors("CONTROLLER_HELD", "CONTROLLER_LEASE_CHANGED"),
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli controller takeover --expected-lease proj.ctl:g3 --authority-ref acme/api#7 --authority-sha256 $(sha256sum < issue7.md | cut -c1-64)",
  ],
  needs: { deps: "herdr" },
  run: runTakeover,
  render: (v) =>
    `${renderController(v)}\n  took over ${v.predecessor.lease_ref} (${v.predecessor.evidence}: ${v.predecessor.detail})`,
});
