import type { StoreTx, WriteOptions } from "../port.ts";
import type { Db } from "./db.ts";
import { reposFor } from "./repos.ts";

/**
 * The repositories of one run of a send's transaction on PostgreSQL: the send's first read (the sender's state)
 * brings along the one a send with named recipients makes later, whether they refuse the sender (the reach rule),
 * so both travel in one round trip. When the sender may not send after all, that answer is dropped with the
 * transaction. Built for each run: a replayed batch runs fn again on fresh repositories.
 */
export const sendReposFor = (db: Db, send: NonNullable<WriteOptions["send"]>): StoreTx => {
  const repos = reposFor(db);
  const { sender, recipients } = send;
  if (db.dialect !== "postgres" || !recipients || recipients.length === 0) return repos;
  let ahead: Promise<string[]> | undefined;
  let sent = false;
  const isAhead = (asker: string, asked: readonly string[]) =>
    asker === sender && asked.length === recipients.length && asked.every((name, i) => name === recipients[i]);
  return {
    ...repos,
    mesh: {
      ...repos.mesh,
      callerState: (name, now) => {
        const state = repos.mesh.callerState(name, now);
        if (name === sender && !sent) {
          sent = true;
          ahead = repos.mesh.refusingRecipients(sender, recipients);
          ahead.catch(() => undefined);
        }
        return state;
      },
      // A contact change in the same transaction makes the answer read ahead stale: it is read again.
      setContactPolicy: (agentId, policy, now) => {
        ahead = undefined;
        return repos.mesh.setContactPolicy(agentId, policy, now);
      },
      setContact: (owner, other, kind, now) => {
        ahead = undefined;
        return repos.mesh.setContact(owner, other, kind, now);
      },
      refusingRecipients: (asker, asked) => {
        const answer = ahead && isAhead(asker, asked) ? ahead : repos.mesh.refusingRecipients(asker, asked);
        ahead = undefined;
        return answer;
      },
    },
  };
};
