// Messages as the messages and thread pages show them: sender, time, each recipient with its delivery's state, the
// thread, and the body as text (bounded; the thread page shows more of it). A message the console's own human agent
// received gets a Reply link: only mail it was given can be answered (the send service's rule).
import type { MessageView } from "../domain/mesh/operator-view.ts";
import { FORM_TOKEN_FIELD } from "./form-guard.ts";
import { none, when } from "./format.ts";
import { type Html, html } from "./html.ts";

export const ACK_ACTION = "/messages/ack";

/** Who reads: the console's human agent, and the token of the form that marks its mail read (absent: no such form). */
export interface Reader {
  human: string;
  ackToken?: string | undefined;
}

/** Recipients named per message; the rest are counted. */
export const SHOWN_RECIPIENTS = 10;

export const DELIVERY_MEANS: Record<string, string> = {
  pending: "in its inbox, unread",
  acked: "read",
  not_checked_in: "stored, never delivered: it was not checked in",
  expired_undelivered: "its session ended before it read this",
};

/** The start of a long text, and how much was left out. */
export const firstChars = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters not shown]`;

export const threadHref = (m: MessageView): string => `/thread?id=${encodeURIComponent(m.thread_id ?? m.id)}#${m.id}`;

const recipients = (m: MessageView): Html => {
  if (m.recipients.length === 0) return none;
  const shown = m.recipients.slice(0, SHOWN_RECIPIENTS);
  const more = m.recipient_count - shown.length;
  return html`<ul class="recipients">${shown.map(
    (r) =>
      html`<li data-recipient="${r.agent_id}">${r.agent_id} <span class="delivery state-${r.state}" title="${DELIVERY_MEANS[r.state] ?? r.state}">${r.state}</span></li>`,
  )}${more > 0 && html`<li class="sub">and ${more} more</li>`}</ul>`;
};

/** The console's human may reply to a message delivered to it (unread or read), never to its own. */
export const canReply = (m: MessageView, human: string): boolean =>
  m.from !== human && m.recipients.some((r) => r.agent_id === human && (r.state === "pending" || r.state === "acked"));

/** Unread mail of the console's human can be marked read without a reply (unread mail bounces when its session ends). */
const isUnreadBy = (m: MessageView, human: string): boolean =>
  m.recipients.some((r) => r.agent_id === human && r.state === "pending");

const actions = (m: MessageView, reader: Reader): Html =>
  html`${
    canReply(m, reader.human) &&
    html`<a class="reply" data-field="reply" href="/compose?reply_to=${m.id}">Reply as ${reader.human}</a>`
  }${
    reader.ackToken &&
    isUnreadBy(m, reader.human) &&
    html` <form method="post" action="${ACK_ACTION}" class="inline" data-form="ack"><input type="hidden" name="${FORM_TOKEN_FIELD}" value="${reader.ackToken}"><input type="hidden" name="message_id" value="${m.id}"><button type="submit">Mark read</button></form>`
  }`;

const where = (m: MessageView): Html =>
  m.channel ? html`<a href="/channels#${m.channel}">#${m.channel}</a>` : html`<a href="${threadHref(m)}">thread</a>`;

export const messageRow = (
  m: MessageView,
  reader: Reader,
  bodyChars: number,
): Html => html`<tr id="${m.id}" data-message-id="${m.id}" class="kind-${m.kind}">
<td data-field="when">${when(m.created_at)}<br><code class="sub">${m.id}</code></td>
<td data-field="from"><strong>${m.from}</strong>${m.kind === "message" ? "" : html`<br><span class="badge">${m.kind}</span>`}</td>
<td data-field="to">${recipients(m)}</td>
<td data-field="thread">${where(m)}</td>
<td data-field="body"><pre class="body">${firstChars(m.body, bodyChars)}</pre>${actions(m, reader)}</td>
</tr>`;

export const messageTable = (messages: MessageView[], reader: Reader, bodyChars: number): Html => html`<table class="messages">
<thead><tr><th>Sent</th><th>From</th><th>To (delivery)</th><th>Where</th><th>Body</th></tr></thead>
<tbody>
${messages.map((m) => messageRow(m, reader, bodyChars))}
</tbody>
</table>`;

/** The link to the next page, or the note that this is the last. */
export const pager = (href: string | null, label: string): Html =>
  href
    ? html`<p class="pager"><a rel="next" data-field="next" href="${href}">${label}</a></p>`
    : html`<p class="pager sub">End of the list.</p>`;
