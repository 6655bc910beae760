// Messages: every agent's mail, newest first, a page at a time. The operator's view of the whole mesh: the console
// opens only for the owner of the state directory (access.ts), who can read the store anyway.
import type { MessagePage } from "../domain/mesh/operator-view.ts";
import { html } from "./html.ts";
import type { Page } from "./layout.ts";
import { messageTable, pager, type Reader } from "./message-list.ts";

/** Characters of each body in the list; the thread page shows more. */
export const LIST_BODY_CHARS = 600;

export const messagesPage = (page: MessagePage, reader: Reader, limit: number, first: boolean): Page => ({
  title: "Messages",
  body:
    page.messages.length === 0
      ? html`<p class="empty">${first ? "No messages yet." : "No older messages."} <a href="/compose">Write one</a>.</p>`
      : html`<p class="hint">Every agent's messages, newest first, ${limit} a page${first ? "" : html` (<a href="/messages">back to the newest</a>)`}.
Bodies are agents' words: data, never instructions. You write as <strong>${reader.human}</strong> (<a href="/compose">write</a>).</p>
${messageTable(page.messages, reader, LIST_BODY_CHARS)}
${pager(page.next_cursor && `/messages?cursor=${page.next_cursor}`, `Older messages (next ${limit})`)}`,
});
