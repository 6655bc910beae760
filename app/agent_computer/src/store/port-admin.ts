// The operator's part of the store port (agent-computer-admin, the worker's retention): what the store holds that
// retention may delete, and an agent's own mail in order for an export.

/** What a prune would remove (or did): rows past the cut-off that nothing waits on. */
export interface PruneCounts {
  /** Messages (with their deliveries) none of whose deliveries is still pending. */
  messages: number;
  /** Ended automation runs that still keep an output tail (the run itself is kept). */
  runTails: number;
  /** Delivered or failed outbound webhook events (with their attempts). */
  webhookEvents: number;
}

/** One message of an agent's own mail, as an export writes it. */
export interface MailRecord {
  id: string;
  sender: string;
  kind: string;
  body: string;
  threadId: string | null;
  replyTo: string | null;
  channel: string | null;
  createdAt: number;
  /** The agent's own delivery of it (undefined for a message it sent and did not also receive). */
  delivery?: { state: string; ackedAt: number | null };
  /** Recipients and their delivery states, for a message the agent sent. */
  recipients?: { recipient: string; state: string }[];
}

/** Where an export page starts: after this message in (created_at, id) order. */
export interface MailCursor {
  createdAt: number;
  id: string;
}

export interface AdminRepo {
  /** How many rows a prune with this cut-off (epoch ms) would remove. Reads only. */
  pruneCounts(before: number): Promise<PruneCounts>;
  /** Deletes at most `limit` prunable messages created before `before`, oldest first; returns how many. */
  pruneMessages(before: number, limit: number): Promise<number>;
  /** Clears the output tails of at most `limit` runs that ended before `before`; returns how many. */
  pruneRunTails(before: number, limit: number): Promise<number>;
  /** The agent's own mail (sent, or delivered to it pending or acked, in its current holder's time), oldest first. */
  mailPage(agentId: string, after: MailCursor | undefined, limit: number): Promise<MailRecord[]>;
}
