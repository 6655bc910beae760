// One thread: its first message and every reply, oldest first, a page at a time; a single message that starts no
// thread shows alone. Each message the console's human received can be answered from here.
import type { MessagePage } from "../domain/mesh/operator-view.ts";
import { html } from "./html.ts";
import type { Page } from "./layout.ts";
import { messageTable, pager, type Reader } from "./message-list.ts";

export const THREAD_BODY_CHARS = 8000;

export const threadPage = (threadId: string, page: MessagePage, reader: Reader, limit: number): Page => ({
  title: "Thread",
  body:
    page.messages.length === 0
      ? html`<p class="empty">No message <code>${threadId}</code> here. <a href="/messages">All messages</a>.</p>`
      : html`<p class="hint">Thread <code data-field="thread-id">${threadId}</code>, oldest first, ${limit} a page. <a href="/messages">All messages</a>.</p>
${messageTable(page.messages, reader, THREAD_BODY_CHARS)}
${pager(page.next_cursor && `/thread?id=${encodeURIComponent(threadId)}&cursor=${page.next_cursor}`, `Later messages (next ${limit})`)}`,
});
