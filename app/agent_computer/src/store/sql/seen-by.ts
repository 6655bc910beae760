/**
 * Message `m` was written in the time of the agent at placeholder `agent`'s current holder: a name revoked without
 * recovery starts clean (holder_since moves past the revocation), so its next holder never sees what came before.
 * A name with no row (nobody can authenticate as it) has no such bound.
 */
export const ofCurrentHolder = (agent: string): string =>
  `m.created_at >= COALESCE((SELECT a.holder_since FROM agents a WHERE a.name = ${agent}), 0)`;

/**
 * Message `m` may be seen by the agent at placeholder `agent`: it sent it, or it was delivered to one of its
 * sessions (pending or acked), in the time of the name's current holder. Stored for a session it never had, or
 * expired unread: never seen.
 */
export const seenBy = (agent: string): string =>
  `(${ofCurrentHolder(agent)} AND (m.sender = ${agent} OR EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id AND d.recipient = ${agent} AND d.state IN ('pending', 'acked'))))`;
