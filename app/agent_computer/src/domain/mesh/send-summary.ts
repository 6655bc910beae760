import type { RecipientOutcome } from "./send.ts";

/** How many recipients of each outcome a summary names; the rest are counted. */
export const SUMMARY_NAMES = 5;

/** Per outcome that occurred: how many recipients had it, and the first few of them in the order given. */
export type OutcomeSummary = Partial<Record<RecipientOutcome, { count: number; first: string[] }>>;

export const summarise = (recipients: readonly { agent_id: string; outcome: RecipientOutcome }[]): OutcomeSummary => {
  const summary: OutcomeSummary = {};
  for (const r of recipients) {
    const entry = summary[r.outcome] ?? { count: 0, first: [] };
    entry.count += 1;
    if (entry.first.length < SUMMARY_NAMES) entry.first.push(r.agent_id);
    summary[r.outcome] = entry;
  }
  return summary;
};

/** Outcomes that mean the recipient reads the message (process_exited: if it checks in again in time). */
const WILL_READ: ReadonlySet<RecipientOutcome> = new Set(["live", "process_exited"]);

/** Whether no recipient will read the message: every one not checked in, unknown or refusing. */
export const noneWillRead = (recipients: readonly { outcome: RecipientOutcome }[]): boolean =>
  !recipients.some((r) => WILL_READ.has(r.outcome));
