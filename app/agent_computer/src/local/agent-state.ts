// What an AI client's own hooks last said about the agent in a tmux pane (working, idle, blocked), kept on this
// host only: one 0600 file per pane under <state dir>/agent-state, replaced atomically, so the wake watcher never
// reads a half-written state and never types into an agent that said it is busy.
import { join, resolve } from "node:path";
import * as z from "zod/mini";
import type { Paths } from "../paths.ts";
import { readTextIfPresent, writePrivateFile } from "./private-files.ts";

export const AGENT_STATES = ["working", "idle", "blocked"] as const;
export type AgentState = (typeof AGENT_STATES)[number];

const stateSchema = z.object({
  state: z.enum(AGENT_STATES),
  at: z.number(),
  /** The hook event that set it (UserPromptSubmit, Stop, Notification, SessionStart, …): for people reading the file. */
  event: z.string().check(z.maxLength(64)),
});
export type AgentStateRecord = z.output<typeof stateSchema>;

/** The tmux server's socket and the pane, as $TMUX ("<socket>,<pid>,<session>") and $TMUX_PANE ("%N") give them. */
export interface TmuxPlace {
  socket: string;
  pane: string;
}

/** The place of the calling process's pane, or undefined outside tmux (or with values that are not tmux's). */
export const tmuxPlaceOf = (env: Readonly<Record<string, string | undefined>>): TmuxPlace | undefined => {
  const socket = env.TMUX?.split(",")[0];
  const pane = env.TMUX_PANE;
  if (!socket?.startsWith("/") || socket.length > 4096 || !pane || !/^%[0-9]{1,9}$/.test(pane)) return undefined;
  return { socket: resolve(socket), pane };
};

/** A name for the pane that is unique on this host: pane numbers repeat across tmux servers. */
export const tmuxPaneKey = (place: TmuxPlace): string =>
  `tmux-${new Bun.CryptoHasher("sha256").update(place.socket).digest("hex").slice(0, 12)}-${place.pane.slice(1)}`;

const stateDir = (paths: Paths): string => join(paths.stateDir, "agent-state");

export const writeAgentState = (paths: Paths, place: TmuxPlace, state: AgentState, event: string, now: number): string =>
  writePrivateFile(
    stateDir(paths),
    `${tmuxPaneKey(place)}.json`,
    `${JSON.stringify(stateSchema.parse({ state, at: now, event: event.slice(0, 64) }))}\n`,
  );

/** The pane's last reported state; undefined when no hook reported one (or the file is not one we wrote). */
export const readAgentState = (paths: Paths, place: TmuxPlace): AgentStateRecord | undefined => {
  try {
    const text = readTextIfPresent(join(stateDir(paths), `${tmuxPaneKey(place)}.json`));
    return text === undefined ? undefined : stateSchema.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
};

/** The state a client hook event means, or undefined for events that say nothing about it. */
export const stateForHookEvent = (
  event: string,
  notificationType: string | undefined,
  message: string | undefined,
): AgentState | undefined => {
  switch (event) {
    case "UserPromptSubmit":
    case "PreToolUse":
    case "PostToolUse":
      return "working";
    case "Stop":
    case "SessionStart":
      return "idle";
    case "PermissionRequest":
      // Codex has no Notification event; its permission dialog announces itself here (Claude Code's does too).
      return "blocked";
    case "Notification":
      // Claude Code names the permission dialog; older versions only say so in the message.
      if (notificationType === "permission_prompt" || /permission/i.test(message ?? "")) return "blocked";
      if (notificationType === "idle_prompt") return "idle";
      return undefined;
    default:
      return undefined;
  }
};
