/**
 * Message `m` may be seen by the agent at placeholder `agent`: it sent it, or it was delivered to one of its
 * sessions (pending or acked). Stored for a session it never had, or expired unread: never seen.
 */
export const seenBy = (agent: string): string =>
  `(m.sender = ${agent} OR EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id AND d.recipient = ${agent} AND d.state IN ('pending', 'acked')))`;
