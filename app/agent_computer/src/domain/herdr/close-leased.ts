// Closing a leased agent's pane (reviewer close, writer release, adopted close): only the exact leased identity,
// only when it is idle or done at exactly the cursor the caller last saw, and only if identity and cursor stay
// unchanged while its output is captured. Herdr's `pane close` takes no expected cursor, so the last checks and
// the close are not atomic; the lease is marked closing first, which refuses every new request.
import { isHerdrError } from "../../adapters/herdr/client.ts";
import { AppError } from "../../errors.ts";
import { isReadyForRequest, observeLeased } from "./agent-identity.ts";
import type { ControllerAuthority } from "./controller-authority.ts";
import { type HerdrDeps, reserve } from "./herdr-deps.ts";
import { herdrFailure } from "./herdr-failure.ts";
import { type LeaseRecord, type LeaseState, leaseIdentity, requireActive, saveLease } from "./leases.ts";
import { outstandingFor, tokenOf } from "./receipts.ts";
import { captureSettled } from "./settle.ts";

export interface CloseStates {
  closing: LeaseState;
  closed: LeaseState;
  failed: LeaseState;
}

export interface CloseResult {
  lease: LeaseRecord;
  capture_sha256: string;
  observed_seq: number;
}

/** Everything runs under the lease's lock and the receipts lock; `prepare` may refuse or record more (writer claims). */
export const closeLeasedPane = (
  deps: HerdrDeps,
  authority: ControllerAuthority,
  leaseId: string,
  load: () => LeaseRecord,
  input: { expectedSeq: number; readLines: number },
  states: CloseStates,
  hooks: { prepare?(lease: LeaseRecord): Promise<void>; transition?(lease: LeaseRecord): Promise<void> } = {},
): Promise<CloseResult> =>
  reserve(deps, [load().type, "receipts"], async () => {
    const lease = load();
    requireActive(lease);
    const blocking = outstandingFor(deps.dirs, leaseId)[0];
    if (blocking) throw new AppError("RECEIPT_OUTSTANDING", `receipt ${tokenOf(blocking)} is still ${blocking.state}`);
    const identity = leaseIdentity(lease);
    const agent = await observeLeased(deps.herdr, identity, lease.agent_name);
    if (!isReadyForRequest(agent.status)) {
      throw new AppError("AGENT_NOT_SETTLED", `${lease.agent_name} is ${agent.status}; it is closed only when idle or done`);
    }
    if (agent.stateChangeSeq !== input.expectedSeq) {
      throw new AppError(
        "CURSOR_MOVED",
        `${lease.agent_name} is at state_change_seq ${agent.stateChangeSeq}, not ${input.expectedSeq}`,
        {
          hint: "read its latest result first; pass the cursor you saw",
        },
      );
    }
    await hooks.prepare?.(lease);
    const capture = await captureSettled(deps.herdr, identity, agent, input.readLines);
    if (!capture.stable) throw new AppError("CURSOR_MOVED", `${lease.agent_name} changed state while its output was captured`);
    await authority.verify();
    const closing = saveLease(deps.dirs, { ...load(), state: states.closing, capture_sha256: capture.sha256 }, deps.now());
    await hooks.transition?.(closing);
    try {
      await deps.herdr.closePane(identity.pane_id);
    } catch (error) {
      if (!isHerdrError(error, "not_found")) {
        const failed = saveLease(deps.dirs, { ...closing, state: states.failed, failure: "close_failed" }, deps.now());
        await hooks.transition?.(failed);
        throw herdrFailure(error);
      }
    }
    const closed = saveLease(deps.dirs, { ...closing, state: states.closed }, deps.now());
    await hooks.transition?.(closed);
    return { lease: closed, capture_sha256: capture.sha256, observed_seq: agent.stateChangeSeq };
  });
