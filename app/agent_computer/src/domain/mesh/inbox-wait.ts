import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import { type Store, WAKE_CHANNEL } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { type InboxResult, readInbox } from "./inbox.ts";
import { peekInbox } from "./peek.ts";
import { TTL_MIN_SECONDS } from "./ttl.ts";

export const WAIT_MIN_SECONDS = 1;
export const WAIT_MAX_SECONDS = 3600;

/**
 * Presence is renewed this often while waiting: half the shortest ttl a session can have, so a waiting agent never
 * leaves the directory, and a dead waiter (killed) stops renewing within that much.
 */
export const WAIT_RENEW_MS = (TTL_MIN_SECONDS * 1000) / 2;

/**
 * How often the waiter looks without a hint. With change hints (NOTIFY on PostgreSQL, file events on SQLite) this
 * only covers a hint lost while the listener reconnected or a file system that sends no events; without them (a
 * transaction pooler refuses LISTEN) it is the whole mechanism, one small read each time.
 */
const POLL_WITH_HINTS_MS = 2000;
const POLL_WITHOUT_HINTS_MS = 250;
/**
 * A hint can come before the change it announces is visible (on SQLite the WAL write is seen before the commit
 * that publishes it), and the next hint may never come: an empty look after a hint is repeated this much later.
 */
const RECHECK_AFTER_HINT_MS = 50;

export interface InboxWaitInput {
  agentId: string;
  limit: number;
  token: string | undefined;
  waitSeconds: number;
  tokenFile?: string | undefined;
}

/**
 * A sleep that a hint ends early; a hint that came while awake makes the next sleep return at once. It answers
 * whether a hint ended it.
 */
const hintableSleep = () => {
  let hinted = false;
  let wake: (() => void) | undefined;
  return {
    hint: () => {
      hinted = true;
      wake?.();
    },
    sleep: (ms: number): Promise<boolean> => {
      if (hinted) {
        hinted = false;
        return Promise.resolve(true);
      }
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => done(false), ms);
        const done = (byHint: boolean) => {
          clearTimeout(timer);
          wake = undefined;
          hinted = false;
          resolve(byHint);
        };
        wake = () => done(true);
      });
    },
  };
};

/** Subscribes to the store's change hints: LISTEN on PostgreSQL, file events on SQLite; undefined when neither works. */
const subscribe = async (store: Store, onHint: () => void): Promise<(() => Promise<void>) | undefined> => {
  try {
    if (store.listen) return await store.listen(WAKE_CHANNEL, onHint);
    if (store.watchCommits) return await store.watchCommits(onHint);
  } catch (error) {
    // Through a transaction pooler LISTEN is refused (CONFIG_INVALID): the wait polls instead. Anything else is a real failure.
    if (!(error instanceof AppError) || error.code !== "CONFIG_INVALID") throw error;
  }
  return undefined;
};

const timedOut = (input: InboxWaitInput): AppError =>
  new AppError("TIMEOUT", `no message reached ${input.agentId} within ${input.waitSeconds} s; nothing was read or acknowledged`, {
    hint: `wait again: ${commandLine(
      "agent-inbox-cli",
      "--agent-id",
      input.agentId,
      ...(input.tokenFile === undefined ? [] : ["--token-file", input.tokenFile]),
      "--wait",
      input.waitSeconds,
    )}`,
    details: { waited_s: input.waitSeconds },
  });

/**
 * The inbox read, blocking until a message waits or the wait runs out (TIMEOUT). Between looks it sleeps until
 * the store hints at a change; each look is a read-only glance (peek), and presence is renewed every
 * WAIT_RENEW_MS by a full read. deps.now must be a live clock.
 */
export const waitForInbox = async (deps: Deps, input: InboxWaitInput): Promise<InboxResult> => {
  const deadline = deps.now() + input.waitSeconds * 1000;
  const read = () => readInbox(deps, { agentId: input.agentId, limit: input.limit, token: input.token });
  const sleeper = hintableSleep();
  // Subscribed before the first look, so a message sent between that look and the subscription still hints.
  const unsubscribe = await subscribe(deps.store, sleeper.hint);
  const pollMs = unsubscribe ? POLL_WITH_HINTS_MS : POLL_WITHOUT_HINTS_MS;
  try {
    let result = await read();
    let renewedAt = deps.now();
    let recheck = false;
    while (result.count === 0) {
      const now = deps.now();
      if (now >= deadline) throw timedOut(input);
      const nap = Math.min(deadline - now, recheck ? RECHECK_AFTER_HINT_MS : pollMs, renewedAt + WAIT_RENEW_MS - now);
      recheck = await sleeper.sleep(nap);
      if (deps.now() - renewedAt >= WAIT_RENEW_MS) {
        result = await read();
        renewedAt = deps.now();
      } else if ((await peekInbox(deps, input)).count > 0) {
        result = await read();
      }
    }
    return result;
  } finally {
    await unsubscribe?.().catch(() => undefined);
  }
};
