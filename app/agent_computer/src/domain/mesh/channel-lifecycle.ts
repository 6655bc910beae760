import { AppError } from "../../errors.ts";
import type { ChannelRecord, StoreTx } from "../../store/port.ts";
import { iso } from "../deps.ts";

/**
 * How long the name of a channel that ended (no members left) stays taken. A channel with no members ends at once
 * (nobody can join, post to or read it again); holding its name a while keeps someone from taking it up at once and
 * passing for the channel its last members knew. After that the name is free for a new channel.
 */
export const CHANNEL_NAME_HOLD_MS = 24 * 3600 * 1000;

const freeAt = (emptiedAt: number): string => iso(emptiedAt + CHANNEL_NAME_HOLD_MS);

/** The answer for a channel that ended: for a join, read or post it no longer exists. */
export const channelEnded = (channel: ChannelRecord & { emptiedAt: number }): AppError =>
  new AppError(
    "NOT_FOUND",
    `channel ${channel.name} ended at ${iso(channel.emptiedAt)} when its last member left; its name is free again at ${freeAt(channel.emptiedAt)}`,
    { hint: "agent-channel-cli list --all shows the channels that have members" },
  );

/** The answer for a create of a name whose channel ended too recently. */
export const nameStillHeld = (channel: ChannelRecord & { emptiedAt: number }): AppError =>
  new AppError(
    "CONFLICT",
    `the channel ${channel.name} ended at ${iso(channel.emptiedAt)}; its name is free again at ${freeAt(channel.emptiedAt)}`,
    { hint: "pick another name, or create it again after that time" },
  );

/** What a leave that emptied the channel says. */
export const endedNote = (emptiedAt: number): string =>
  `you were its last member: the channel ended; its name is free again at ${freeAt(emptiedAt)}`;

/**
 * Ends every channel found with no members (whichever way its members went: leave, unregister, revoke) and, before a
 * create, frees `name` if its channel ended at least CHANNEL_NAME_HOLD_MS ago.
 */
export const settleChannels = async (tx: StoreTx, now: number, name?: string): Promise<void> => {
  await tx.channels.markEmptied(now);
  if (name !== undefined) await tx.channels.dropEnded(name, now - CHANNEL_NAME_HOLD_MS);
};

export const hasEnded = (channel: ChannelRecord): channel is ChannelRecord & { emptiedAt: number } => channel.emptiedAt !== null;
