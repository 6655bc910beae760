import { commandLine } from "../../command-line.ts";
import { AppError, cannotWrite } from "../../errors.ts";
import type { SessionRecord, StoreTx } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { verifyCredentials } from "../identity/authenticate.ts";
import { endExpiredSessions } from "./expiry.ts";

/**
 * Calls that only renew presence write it at most this often per agent: a burst of sends costs one presence
 * write a second instead of two writes each, and a session's expiry is at most this much earlier than the
 * ttl counted from the very last call.
 */
export const PRESENCE_WRITE_INTERVAL_MS = 1000;

/** Whether the caller holds a live session after the call (its replies reach it only if so). */
export interface CallerPresence {
  sessionLive: boolean;
}

/** An authenticated caller, and the presence writes its call owes (not yet made). */
export interface MetCaller extends CallerPresence {
  agentId: string;
  /** last_seen_at is a second old: the agents row is written. */
  touch: boolean;
  /** The live session's activity is a second old: the session is extended. */
  extend: boolean;
}

/**
 * The first half of a call that only renews presence: check the token, expire what is due, and decide which
 * presence writes are owed, without making them. A call that writes other agents' rows too (a send) makes them
 * with writePresence once it has locked every row it writes in the one order (lock-order.ts).
 */
export const meetCaller = async (deps: Deps, tx: StoreTx, agentId: string, token: string | undefined): Promise<MetCaller> => {
  const caller = await verifyCredentials(tx, agentId, token, await tx.mesh.callerState(agentId, deps.now()));
  if (caller.expiryDue) await endExpiredSessions(tx, deps.now(), deps.newId);
  const stale = (writtenAt: number) => deps.now() - writtenAt >= PRESENCE_WRITE_INTERVAL_MS;
  // A session that ran out was ended just above (expiry was due), so it is not extended here either.
  const sessionLive = caller.sessionExpiresAt !== undefined && caller.sessionExpiresAt > deps.now();
  return {
    agentId,
    sessionLive,
    touch: stale(caller.lastSeenAt),
    extend: sessionLive && stale(caller.sessionActivityAt as number),
  };
};

/** The agents whose rows writePresence will write: the caller's, when its presence is due. */
export const presenceRows = (caller: MetCaller): string[] => (caller.touch ? [caller.agentId] : []);

/**
 * Makes the presence writes meetCaller decided on: the agents row, then the session row. Across tables the one
 * order is agents' rows before sessions' rows, as check-in (its agent, then its session) and inbox (touch, then
 * renew) take them: a send that extended its session before locking agents' rows could deadlock with them.
 */
export const writePresence = async (deps: Deps, tx: StoreTx, caller: MetCaller): Promise<void> => {
  if (caller.touch) await tx.mesh.touchAgent(caller.agentId, deps.now());
  if (caller.extend) await tx.mesh.extendSession(caller.agentId, deps.now());
};

const notCheckedIn = (agentId: string): AppError =>
  new AppError("NOT_CHECKED_IN", `${agentId} has no live check-in, so it has no inbox to read`, {
    hint: `check in first: ${commandLine("agent-checkin-cli", "--agent-id", agentId, "--confirm")} (see agent-checkin-cli --help)`,
  });

/**
 * The common start of an authenticated mesh call: check the token, expire what is due, renew presence.
 * One read answers all three questions; with nothing due and presence fresh, that read is the whole cost.
 * With `require` (inbox, ack), a missing live session is an error naming the command that fixes it, and presence
 * is written whatever its age and the renewed session returned; without it, presence is renewed if there is a
 * session, at most once a second, and the answer says whether the caller still has a live session.
 * With `renew` false (a read transaction, see withPresence) nothing is written: the token is checked and the
 * session looked at as it stands.
 */
export async function enterMesh(
  deps: Deps,
  tx: StoreTx,
  agentId: string,
  token: string | undefined,
  require: true,
  renew?: boolean,
): Promise<SessionRecord>;
export async function enterMesh(
  deps: Deps,
  tx: StoreTx,
  agentId: string,
  token: string | undefined,
  require: false,
  renew?: boolean,
): Promise<CallerPresence>;
export async function enterMesh(
  deps: Deps,
  tx: StoreTx,
  agentId: string,
  token: string | undefined,
  require: boolean,
  renew = true,
): Promise<SessionRecord | CallerPresence> {
  if (!require && renew) {
    const caller = await meetCaller(deps, tx, agentId, token);
    await writePresence(deps, tx, caller);
    return { sessionLive: caller.sessionLive };
  }
  const caller = await verifyCredentials(tx, agentId, token, await tx.mesh.callerState(agentId, deps.now()));
  if (!renew) {
    // A session that ran out but was not ended yet (ending it is a write) is not live either.
    const sessionLive = caller.sessionExpiresAt !== undefined && caller.sessionExpiresAt > deps.now();
    if (!require) return { sessionLive };
    const session = sessionLive ? await tx.mesh.openSession(agentId) : undefined;
    if (!session) throw notCheckedIn(agentId);
    return session;
  }
  if (caller.expiryDue) await endExpiredSessions(tx, deps.now(), deps.newId);
  // Reading or acknowledging the inbox is looking: it always counts as being seen (task assignment breaks ties
  // by who was seen last).
  await tx.mesh.touchAgent(agentId, deps.now());
  const session = await tx.mesh.renewSession(agentId, deps.now());
  if (!session) throw notCheckedIn(agentId);
  return session;
}

/** What a call whose only write is presence answers: its result, and why presence was not renewed if it was not. */
export interface WithPresence<T> {
  value: T;
  /** Set when the store could not take the presence write (disk full, read-only) and the call answered from a read. */
  warning?: string;
}

/**
 * Runs a call whose only write is the caller's presence (fn passes `renew` on to enterMesh): as one write
 * transaction, or, when the store cannot take a write (disk full, read-only), again as a read that leaves
 * presence as it was. A read never fails for want of a presence update; the warning says what was not done.
 */
export const withPresence = async <T>(deps: Deps, fn: (tx: StoreTx, renew: boolean) => Promise<T>): Promise<WithPresence<T>> => {
  try {
    return { value: await deps.store.write((tx) => fn(tx, true)) };
  } catch (error) {
    if (!cannotWrite(error)) throw error;
    const value = await deps.store.read((tx) => fn(tx, false));
    const { code, message } = error as AppError;
    return { value, warning: `presence not renewed (${code}: ${message})` };
  }
};
