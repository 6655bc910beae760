// Write: a message to named agents, a reply to a message the console's human received, or a post to a channel, sent
// as that human agent. Each form carries its token (form-guard.ts); the page is not refreshed under the writer.
import type { ChannelOverview, MessageView } from "../domain/mesh/operator-view.ts";
import { FORM_TOKEN_FIELD } from "./form-guard.ts";
import { type Html, html } from "./html.ts";
import type { Page } from "./layout.ts";
import { messageTable } from "./message-list.ts";
import { THREAD_BODY_CHARS } from "./thread-page.ts";

export const COMPOSE_ACTION = "/compose";
export const CHANNEL_POST_ACTION = "/channels/post";

export interface ComposeState {
  human: string;
  tokens: { compose: string; channelPost: string };
  channels: ChannelOverview[];
  /** What the form held when it was refused, and why. */
  to?: string | undefined;
  body?: string | undefined;
  channel?: string | undefined;
  replyTo?: MessageView | undefined;
  error?: { form: "compose" | "channel"; text: string } | undefined;
}

const problem = (s: ComposeState, form: "compose" | "channel"): Html | false =>
  s.error?.form === form && html`<p class="error" role="alert" data-field="error">${s.error.text}</p>`;

const messageForm = (s: ComposeState): Html => html`<section class="compose" id="write">
<h2 class="part">${s.replyTo ? html`Reply to ${s.replyTo.from}` : "Write a message"}</h2>
${s.replyTo && messageTable([s.replyTo], { human: s.human }, THREAD_BODY_CHARS)}
${problem(s, "compose")}
<form method="post" action="${COMPOSE_ACTION}" data-form="compose">
<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${s.tokens.compose}">
${
  s.replyTo
    ? html`<input type="hidden" name="reply_to" value="${s.replyTo.id}">`
    : html`<label>To <input name="to" value="${s.to ?? ""}" placeholder="agent names, separated by spaces or commas" required autocomplete="off"></label>`
}
<label>Message <textarea name="body" rows="8" required>${(s.error?.form === "compose" && s.body) || ""}</textarea></label>
<button type="submit">${s.replyTo ? "Send the reply" : "Send"} as ${s.human}</button>
</form>
</section>`;

const channelForm = (s: ComposeState): Html => html`<section class="compose" id="post">
<h2 class="part">Post to a channel</h2>
${problem(s, "channel")}
${
  s.channels.length === 0
    ? html`<p class="empty">No channels. <code>agent-channel-cli create --help</code> explains them.</p>`
    : html`<form method="post" action="${CHANNEL_POST_ACTION}" data-form="channel">
<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${s.tokens.channelPost}">
<label>Channel <select name="channel">${s.channels.map(
        (c) =>
          html`<option value="${c.name}"${c.name === s.channel && html` selected`}>#${c.name} (${c.member_count} members)</option>`,
      )}</select></label>
<label>Post <textarea name="body" rows="5" required>${(s.error?.form === "channel" && s.body) || ""}</textarea></label>
<button type="submit">Post as ${s.human}</button>
<p class="sub">Posting joins ${s.human} to the channel first, as agent-channel-cli post needs.</p>
</form>`
}
</section>`;

export const composePage = (s: ComposeState): Page => ({
  title: "Write",
  live: false,
  body: html`<p class="hint">You write as <strong>${s.human}</strong>, an agent of this console's own (class human, its token in this
state directory's vault). Recipients' contact policies and the rate limits apply as to any agent; mail reaches only
agents that are checked in. Agents' replies reach ${s.human}'s inbox, shown on <a href="/messages">Messages</a>.</p>
${messageForm(s)}
${s.replyTo ? "" : channelForm(s)}`,
});
