// When to wake an armed agent: a pure decision over what the store and Herdr said, so every safety rule of
// auto-wake is one line here and testable without processes.
//
// Why a wake loop cannot happen:
// - only another party's mail wakes an agent: deliveries of kind message or event whose sender is not the agent
//   itself (store/sql/wake.ts); bounces never wake, so mail expiring after a wake cannot feed the next one;
// - nothing on the wake path writes a message: issuing a token, prompting and redeeming write only wake_tokens;
// - at most one outstanding wake per agent (a unique index), and a hard hourly cap, bound even two agents that
//   answer each other automatically.
import type { HerdrAgentStatus } from "../../adapters/herdr/client.ts";
import type { WakeBacklog } from "../../store/port-wake.ts";
import type { WakeTuning } from "./tuning.ts";

export interface PaneStatusView {
  status: HerdrAgentStatus;
  /** Herdr is known to report this status right now (a status wait is in flight), not merely last seen. */
  confirmed: boolean;
}

export interface WakeView {
  now: number;
  /** This host's name: an agent whose session moved to another host is no longer woken here. */
  host: string;
  backlog: WakeBacklog;
  /** null when the pane's status is not known (tracker starting, Herdr unreachable). */
  pane: PaneStatusView | null;
  /** When this watcher first saw the current new mail (its own clock). */
  firstSeenAt: number | null;
  /** When a due wake started waiting for the agent to settle. */
  deferSince: number | null;
  /** No attempt before this (after a failed prompt or while the hourly cap is reached). */
  retryAt: number;
  tuning: Pick<WakeTuning, "coalesceMs" | "workingMaxMs">;
}

export type WakeDecision =
  | { kind: "disarm"; reason: "session_ended" | "session_moved" }
  | { kind: "nothing" }
  | { kind: "wait"; reason: "outstanding" | "backoff" | "coalescing" | "blocked" | "working"; until: number | null }
  /** verify: ask Herdr for the status first and decide again; forced: the working bound ran out. */
  | { kind: "prompt"; verify: boolean; forced: boolean };

export const decideWake = (view: WakeView): WakeDecision => {
  const { now, backlog, pane } = view;
  const session = backlog.session;
  if (!session || session.endedAt !== null || session.expiresAt <= now) return { kind: "disarm", reason: "session_ended" };
  if (session.host !== view.host) return { kind: "disarm", reason: "session_moved" };
  if (backlog.count === 0) return { kind: "nothing" };
  if (backlog.outstanding) return { kind: "wait", reason: "outstanding", until: null };
  if (now < view.retryAt) return { kind: "wait", reason: "backoff", until: view.retryAt };
  // The window opens when the first message was sent, so the time it took to notice it counts; a sender whose clock
  // runs ahead cannot stretch it, because it never opens later than this watcher first saw the mail.
  const openedAt = Math.min(view.firstSeenAt ?? now, backlog.firstCreatedAt ?? Number.POSITIVE_INFINITY);
  const coalescedAt = openedAt + view.tuning.coalesceMs;
  if (now < coalescedAt) return { kind: "wait", reason: "coalescing", until: coalescedAt };
  if (!pane) return { kind: "prompt", verify: true, forced: false };
  // A blocked agent shows a human dialog: typing into it could answer the dialog. Never, however long.
  if (pane.status === "blocked") return { kind: "wait", reason: "blocked", until: null };
  if (pane.status === "working" || pane.status === "unknown") {
    const boundAt = (view.deferSince ?? now) + view.tuning.workingMaxMs;
    if (view.deferSince !== null && now >= boundAt) return { kind: "prompt", verify: !pane.confirmed, forced: true };
    return { kind: "wait", reason: "working", until: boundAt };
  }
  return { kind: "prompt", verify: !pane.confirmed, forced: false };
};
