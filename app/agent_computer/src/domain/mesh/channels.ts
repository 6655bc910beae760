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
  members: string[];
}

export type ChannelAction =
  | { kind: "create" | "join" | "leave"; channel: string }
  | { kind: "list"; all: boolean }
  | { kind: "post"; channel: string; body: string }
  | { kind: "read"; channel: string; limit: number };

export interface ChannelResult {
  agent_id: string;
  /** create, join, leave: whether anything changed (false: it already was so). */
  changed?: boolean;
  channel?: ChannelView;
  channels?: ChannelView[];
  /** post: the message and who it reached; refused_by_policy: members whose contact policy refuses the poster. */
  post?: { id: string; created_at: string; delivered_to: string[]; not_checked_in: string[]; refused_by_policy: string[] };
  /** read: the channel's most recent posts, oldest first. */
  posts?: { id: string; from: string; created_at: string; body: string }[];
  note?: string;
  /** list, read: why presence was not renewed, when the store could not take that write (withPresence). */
  warning?: string;
}

const view = (c: ChannelRecord): ChannelView => ({
  name: c.name,
  created_by: c.createdBy,
  created_at: iso(c.createdAt),
  members: c.members,
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
  const post = { id, created_at: iso(now), delivered_to: delivered, not_checked_in: away, refused_by_policy: reached.refusing };
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
    case "list":
      return { agent_id: agentId, channels: (await tx.channels.listChannels(action.all ? undefined : agentId)).map(view) };
    case "read": {
      const channel = await member(tx, action.channel, agentId);
      const posts = await tx.channels.posts(channel.name, action.limit);
      return {
        agent_id: agentId,
        channel: view(channel),
        posts: posts.map((p) => ({ id: p.id, from: p.sender, created_at: iso(p.createdAt), body: p.body })),
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
