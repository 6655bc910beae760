import { AppError } from "../../errors.ts";
import type { ChannelRecord, StoreTx } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";
import { channelEnded, endedNote, hasEnded, nameStillHeld, settleChannels } from "./channel-lifecycle.ts";
import { DATA_NOT_INSTRUCTIONS } from "./data-note.ts";
import { deliverTo } from "./deliver.ts";
import { enterMesh, meetCaller, presenceRows, withPresence, writePresence } from "./live-session.ts";
import { lockAgentsInOrder } from "./lock-order.ts";

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
  /** post: the message and who it reached. */
  post?: { id: string; created_at: string; delivered_to: string[]; not_checked_in: string[] };
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

/** A post to a channel the caller is a member of: one message, delivered to every other member. */
const postTo = async (deps: Deps, tx: StoreTx, agentId: string, channel: ChannelRecord, body: string): Promise<ChannelResult> => {
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
  for (const recipient of channel.members.filter((m) => m !== agentId)) {
    const delivery = await deliverTo(
      tx,
      { id, sender: agentId, kind: "message", threadId: null, channel: channel.name },
      recipient,
      now,
    );
    if (delivery?.live) delivered.push(recipient);
    else if (delivery) away.push(recipient);
  }
  return {
    agent_id: agentId,
    channel: view(channel),
    post: { id, created_at: iso(now), delivered_to: delivered, not_checked_in: away },
  };
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
    // A post writes the rows of every member: the caller's presence and each member's inbox sequence all locked
    // first, together and in the one order (lock-order.ts), as a send does.
    return deps.store.write(async (tx) => {
      const caller = await meetCaller(deps, tx, input.agentId, input.token);
      const channel = await member(tx, action.channel, input.agentId);
      await lockAgentsInOrder(tx, [...presenceRows(caller), ...channel.members.filter((m) => m !== input.agentId)]);
      await writePresence(deps, tx, caller);
      return postTo(deps, tx, input.agentId, channel, action.body);
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
