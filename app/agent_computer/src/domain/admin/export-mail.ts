// An agent's own mail as JSON Lines records (agent-computer-admin export): what it sent and what was delivered to
// it, oldest first, read page by page so an export of any size holds one page in memory. Every page is read in
// a transaction that checks the agent's token first, as every read of the mesh does; nothing is written.
import type { MailCursor, MailRecord } from "../../store/port.ts";
import { type Deps, iso, isoOrNull } from "../deps.ts";
import { enterMesh } from "../mesh/live-session.ts";

export const EXPORT_PAGE = 500;

/** One line of an export; snake_case like every JSON document of the family. */
export interface MailLine {
  id: string;
  direction: "sent" | "received" | "sent_to_self";
  from: string;
  to?: { agent_id: string; state: string }[];
  kind: string;
  thread_id: string | null;
  reply_to: string | null;
  channel: string | null;
  created_at: string;
  state?: string;
  acked_at?: string | null;
  body: string;
}

const lineOf = (agentId: string, m: MailRecord): MailLine => ({
  id: m.id,
  direction: m.sender !== agentId ? "received" : m.delivery ? "sent_to_self" : "sent",
  from: m.sender,
  ...(m.recipients ? { to: m.recipients.map((r) => ({ agent_id: r.recipient, state: r.state })) } : {}),
  kind: m.kind,
  thread_id: m.threadId,
  reply_to: m.replyTo,
  channel: m.channel,
  created_at: iso(m.createdAt),
  ...(m.delivery ? { state: m.delivery.state, acked_at: isoOrNull(m.delivery.ackedAt) } : {}),
  body: m.body,
});

/** Calls `write` with each page's lines in order; returns how many messages were exported. */
export const exportMail = async (
  deps: Deps,
  input: { agentId: string; token: string | undefined; page?: number },
  write: (lines: MailLine[]) => Promise<void>,
): Promise<number> => {
  const page = input.page ?? EXPORT_PAGE;
  let after: MailCursor | undefined;
  let count = 0;
  for (;;) {
    const mail = await deps.store.read(async (tx) => {
      await enterMesh(deps, tx, input.agentId, input.token, false, false);
      return tx.admin.mailPage(input.agentId, after, page);
    });
    if (mail.length > 0) await write(mail.map((m) => lineOf(input.agentId, m)));
    count += mail.length;
    const last = mail.at(-1);
    if (!last || mail.length < page) return count;
    after = { createdAt: last.createdAt, id: last.id };
  }
};
