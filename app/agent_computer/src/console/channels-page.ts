// Channels: every channel that has not ended, with its members; each links to a post form.
import type { ChannelOverview } from "../domain/mesh/operator-view.ts";
import { when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { Page } from "./layout.ts";

const row = (c: ChannelOverview): Html => html`<tr id="${c.name}" data-channel="${c.name}">
<td data-field="name"><strong>#${c.name}</strong><br><a class="sub" href="/compose?channel=${c.name}">post</a></td>
<td data-field="members">${c.members.join(", ")}${c.member_count > c.members.length && html` <span class="sub">and ${c.member_count - c.members.length} more</span>`}</td>
<td data-field="created_by">${c.created_by}</td>
<td data-field="created">${when(c.created_at)}</td>
</tr>`;

export const channelsPage = (list: { channels: ChannelOverview[]; more: boolean }, limit: number): Page => ({
  title: "Channels",
  body:
    list.channels.length === 0
      ? html`<p class="empty">No channels. <code>agent-channel-cli create --help</code> explains them.</p>`
      : html`<p class="hint">Channels by name, with their members; posts are messages (<a href="/messages">Messages</a>).${
          list.more && html` The first ${limit} are shown: <code>agent-channel-cli list --all</code> lists every one.`
        }</p>
<table class="channels">
<thead><tr><th>Channel</th><th>Members</th><th>Created by</th><th>Created</th></tr></thead>
<tbody>
${list.channels.map(row)}
</tbody>
</table>`,
});
