import { AppError } from "../../errors.ts";
import type { ChannelRecord, StoreTx } from "../../store/port.ts";
import { type Deps, hostIdOf, iso } from "../deps.ts";
import { takeDeliveryAndHostSlots, takeRateSlots } from "../identity/rate-limit.ts";
import { channelEnded, endedNote, hasEnded, nameStillHeld, settleChannels } from "./channel-lifecycle.ts";
import { DATA_NOT_INSTRUCTIONS } from "./data-note.ts";
import { deliverTo } from "./deliver.ts";
import { enterMesh, meetCaller, presenceRows, withPresence, writePresence } from "./live-session.ts";
import { lockAgentsInOrder } from "./lock-order.ts";
import { refusingRecipients } from "./reach.ts";

export interface ChannelView {
  name: string;
  created_by: string;
  created_at: string;
  member_count: number;
  /** The first MEMBERS_SHOWN members by name: a channel may hold thousands. */
  members: string[];
}

/** How many members a channel's view names; member_count says how many it has. */
export const MEMBERS_SHOWN = 20;

export type ChannelAction =
  | { kind: "create" | "join" | "leave"; channel: string }
  | { kind: "list"; all: boolean; after?: string | undefined; limit?: number }
  | { kind: "post"; channel: string; body: string }
  | { kind: "read"; channel: string; limit: number; before?: { createdAt: number; id: string } | undefined };

export interface ChannelResult {
  agent_id: string;
  /** create, join, leave: whether anything changed (false: it already was so). */
  changed?: boolean;
  channel?: ChannelView;
  channels?: ChannelView[];
  /** list with a limit: how many channels follow the last one listed. */
  channels_following?: number;
  /** post: the message and who it reached; refused_by_policy: members whose contact policy refuses the poster. */
  post?: {
    id: string;
    created_at: string;
    delivered_to: string[];
    not_checked_in: string[];
    refused_by_policy: string[];
    counts: { delivered: number; not_checked_in: number; refused_by_policy: number };
  };
  /** read: the channel's most recent posts (before the cursor's), oldest first. */
  posts?: { id: string; from: string; created_at: string; body: string }[];
  /** read: how many posts are older than the oldest one shown. */
  older_posts?: number;
  note?: string;
  /** list, read: why presence was not renewed, when the store could not take that write (withPresence). */
  warning?: string;
}

const view = (c: ChannelRecord): ChannelView => ({
  name: c.name,
  created_by: c.createdBy,
  created_at: iso(c.createdAt),
  member_count: c.members.length,
  members: c.members.slice(0, MEMBERS_SHOWN),
});

const existing = async (tx: StoreTx, name: string): Promise<ChannelRecord> => {
  const channel = await tx.channels.getChannel(name);
  if (!channel) {
    throw new AppError("NOT_FOUND", `no channel named ${name}`, {
      hint: "agent-channel-cli list --all shows every channel; agent-channel-cli create makes one",
    });
  }
  if (hasEnded(channel)) throw channelEnded(channel);
  return channel;
};

const member = async (tx: StoreTx, name: string, agentId: string): Promise<ChannelRecord> => {
  const channel = await existing(tx, name);
  if (!channel.members.includes(agentId)) {
    throw new AppError("NOT_A_MEMBER", `${agentId} is not a member of channel ${name}; nothing was done`, {
      hint: `join it first: agent-channel-cli join --agent-id ${agentId} --channel ${name}`,
    });
  }
  return channel;
};

/**
 * A post to a channel the caller is a member of: one message, delivered to every other member that accepts the
 * poster (reach.ts; a refused member can still read it in the history). Returns how many inboxes it reached.
 */
const postTo = async (
  deps: Deps,
  tx: StoreTx,
  agentId: string,
  channel: ChannelRecord,
  body: string,
  reached: { accepting: string[]; refusing: string[] },
): Promise<{ result: ChannelResult; deliveries: number }> => {
  const now = deps.now();
  const id = deps.newId("msg");
  await tx.mesh.insertMessage({
    id,
    sender: agentId,
    kind: "message",
    body,
    threadId: null,
    idempotencyKey: null,
    channel: channel.name,
    createdAt: now,
  });
  const delivered: string[] = [];
  const away: string[] = [];
  for (const recipient of reached.accepting) {
    const delivery = await deliverTo(
      tx,
      { id, sender: agentId, kind: "message", threadId: null, channel: channel.name },
      recipient,
      now,
    );
    if (delivery?.live) delivered.push(recipient);
    else if (delivery) away.push(recipient);
  }
  // A channel may hold thousands: the post names the first few of each outcome and counts them all.
  const post = {
    id,
    created_at: iso(now),
    delivered_to: delivered.slice(0, MEMBERS_SHOWN),
    not_checked_in: away.slice(0, MEMBERS_SHOWN),
    refused_by_policy: reached.refusing.slice(0, MEMBERS_SHOWN),
    counts: { delivered: delivered.length, not_checked_in: away.length, refused_by_policy: reached.refusing.length },
  };
  return { result: { agent_id: agentId, channel: view(channel), post }, deliveries: delivered.length + away.length };
};

/** Every action but a post, which locks its members first (channelAction). */
const act = async (
  deps: Deps,
  tx: StoreTx,
  agentId: string,
  action: Exclude<ChannelAction, { kind: "post" }>,
): Promise<ChannelResult> => {
  const now = deps.now();
  switch (action.kind) {
    case "create": {
      await settleChannels(tx, now, action.channel);
      const created = await tx.channels.createChannel(action.channel, agentId, now);
      const taken = created ? undefined : await tx.channels.getChannel(action.channel);
      if (taken && hasEnded(taken)) throw nameStillHeld(taken);
      if (!created) {
        throw new AppError("CONFLICT", `a channel named ${action.channel} exists already`, {
          hint: `join it: agent-channel-cli join --agent-id ${agentId} --channel ${action.channel}`,
        });
      }
      await tx.channels.join(action.channel, agentId, now);
      return { agent_id: agentId, changed: true, channel: view(await existing(tx, action.channel)) };
    }
    case "join": {
      await settleChannels(tx, now);
      await existing(tx, action.channel);
      const changed = await tx.channels.join(action.channel, agentId, now);
      return { agent_id: agentId, changed, channel: view(await existing(tx, action.channel)) };
    }
    case "leave": {
      await existing(tx, action.channel);
      const changed = await tx.channels.leave(action.channel, agentId);
      await settleChannels(tx, now);
      const left = (await tx.channels.getChannel(action.channel)) as ChannelRecord;
      return {
        agent_id: agentId,
        changed,
        channel: view(left),
        ...(left.emptiedAt !== null ? { note: endedNote(left.emptiedAt) } : {}),
      };
    }
    case "list": {
      const whose = action.all ? undefined : agentId;
      const page = { after: action.after, ...(action.limit === undefined ? {} : { limit: action.limit + 1 }) };
      const found = await tx.channels.listChannels(whose, page);
      const shown = action.limit === undefined ? found : found.slice(0, action.limit);
      const more = found.length > shown.length;
      const following = more ? await tx.channels.countChannels(whose, shown.at(-1)?.name) : 0;
      return { agent_id: agentId, channels: shown.map(view), channels_following: following };
    }
    case "read": {
      const channel = await member(tx, action.channel, agentId);
      const found = await tx.channels.posts(channel.name, action.limit + 1, action.before);
      const shown = found.slice(0, action.limit);
      const oldest = shown.at(-1);
      const older = found.length > action.limit && oldest ? await tx.channels.countPosts(channel.name, oldest) : 0;
      return {
        agent_id: agentId,
        channel: view(channel),
        posts: shown.reverse().map((p) => ({ id: p.id, from: p.sender, created_at: iso(p.createdAt), body: p.body })),
        older_posts: older,
        note: DATA_NOT_INSTRUCTIONS,
      };
    }
  }
};

/**
 * One channel action by an authenticated agent, in one transaction. Membership belongs to the agent name, so it
 * survives re-check-in; a post reaches each other member's live session (or is stored not_checked_in, never
 * delivered, like any message to an agent that is not checked in).
 */
export const channelAction = async (
  deps: Deps,
  input: { agentId: string; token: string | undefined; action: ChannelAction },
): Promise<ChannelResult> => {
  const { action } = input;
  if (action.kind === "post") {
    // A post writes the rows of every member that accepts the poster: the caller's presence and each such member's
    // inbox sequence, all locked first, together and in the one order (lock-order.ts), as a send does. It is a
    // message the poster sends: it counts against the message limits as a send does, and each inbox it reaches
    // against the delivery budgets; the host's counters, written by every sender of the host, last.
    return deps.store.write(async (tx) => {
      const caller = await meetCaller(deps, tx, input.agentId, input.token);
      const channel = await member(tx, action.channel, input.agentId);
      const rateKeys = { name: input.agentId, host: hostIdOf(deps) };
      await takeRateSlots(tx, deps.limits, "send", rateKeys, deps.now(), ["name"]);
      const others = channel.members.filter((m) => m !== input.agentId);
      const refused = new Set(await refusingRecipients(tx, input.agentId, others));
      const accepting = others.filter((m) => !refused.has(m));
      await lockAgentsInOrder(tx, [...presenceRows(caller), ...accepting]);
      await writePresence(deps, tx, caller);
      const { result, deliveries } = await postTo(deps, tx, input.agentId, channel, action.body, {
        accepting,
        refusing: [...refused],
      });
      await takeDeliveryAndHostSlots(tx, deps.limits, rateKeys, deliveries, deps.now());
      return result;
    });
  }
  if (action.kind === "list" || action.kind === "read") {
    // Reads whose only write is presence still answer on a full or read-only store.
    const { value, warning } = await withPresence(deps, async (tx, renew) => {
      await enterMesh(deps, tx, input.agentId, input.token, false, renew);
      return act(deps, tx, input.agentId, action);
    });
    return warning ? { ...value, warning } : value;
  }
  return deps.store.write(async (tx) => {
    await enterMesh(deps, tx, input.agentId, input.token, false);
    return act(deps, tx, input.agentId, action);
  });
};
