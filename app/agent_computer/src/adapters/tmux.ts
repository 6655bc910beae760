// The few tmux calls auto-wake makes against a pane it recorded: read the pane's facts, and type one line into it.
// execa with argument arrays only, always against the recorded server socket (-S), never the caller's default
// server; the typed text goes through `send-keys -l` (literal: no key names interpreted), Enter separately.
import { execa } from "execa";

export type TmuxErrorKind = "not_installed" | "server_unavailable" | "failed" | "timeout";

export class TmuxError extends Error {
  constructor(
    readonly kind: TmuxErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "TmuxError";
  }
}

/** What auto-wake reads of a pane before it types: who runs there, whether a person is using it, and since when. */
export interface TmuxPaneFacts {
  paneId: string;
  panePid: number;
  currentCommand: string;
  /** Copy mode or another mode: keys would go to tmux, not to the agent. */
  inMode: boolean;
  dead: boolean;
  sessionId: string;
  /** Epoch ms (end of tmux's whole second) of the last output in the pane's window: typed keys are echoed, so typing counts. */
  windowActivityMs: number;
  /** Epoch ms of the last key pressed by any client attached to the pane's session (0 without clients). */
  clientActivityMs: number;
}

export interface Tmux {
  /** The pane's facts, or undefined when the server has no such pane. */
  paneFacts(paneId: string): Promise<TmuxPaneFacts | undefined>;
  /** Types `text` literally into the pane, then presses Enter. */
  typeLine(paneId: string, text: string): Promise<void>;
}

export const TMUX_PANE_PATTERN = /^%[0-9]{1,9}$/;
const TIMEOUT_MS = 5_000;
const ENTER_AFTER_MS = 400;
const SEP = "\u001f";
const FACTS = ["pane_id", "pane_pid", "pane_current_command", "pane_in_mode", "pane_dead", "session_id", "window_activity"];

/** tmux keeps activity times in whole seconds: the latest moment within that second, so "recent" errs on the safe side. */
const seconds = (text: string | undefined): number => {
  const n = Number(text);
  return Number.isFinite(n) && n > 0 ? n * 1000 + 999 : 0;
};

export const createTmux = (options: {
  bin: string;
  socket: string;
  env?: Readonly<Record<string, string | undefined>>;
}): Tmux => {
  const env: Record<string, string> = { LC_ALL: "C.UTF-8" };
  for (const key of ["PATH", "HOME"]) if (options.env?.[key]) env[key] = options.env[key] as string;

  const run = async (args: readonly string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> => {
    const result = await execa(options.bin, ["-S", options.socket, ...args], {
      env,
      extendEnv: false,
      reject: false,
      stdin: "ignore",
      timeout: TIMEOUT_MS,
      maxBuffer: 1024 * 1024,
    });
    const failure = result as { code?: unknown; timedOut?: boolean };
    if (failure.code === "ENOENT") throw new TmuxError("not_installed", `${options.bin} not found`);
    if (failure.timedOut) throw new TmuxError("timeout", `tmux ${args[0]} timed out`);
    return { ok: result.exitCode === 0, stdout: String(result.stdout), stderr: String(result.stderr) };
  };

  const checkPane = (paneId: string): string => {
    if (!TMUX_PANE_PATTERN.test(paneId)) throw new TmuxError("failed", "not a tmux pane id");
    return paneId;
  };

  return {
    paneFacts: async (paneId) => {
      const format = FACTS.map((name) => `#{${name}}`).join(SEP);
      const shown = await run(["display-message", "-p", "-t", checkPane(paneId), format]);
      if (!shown.ok) {
        if (/can't find|no such/i.test(shown.stderr)) return undefined;
        if (/no server running|error connecting|No such file/i.test(shown.stderr)) {
          throw new TmuxError("server_unavailable", "no tmux server answers on the recorded socket");
        }
        throw new TmuxError("failed", "tmux display-message failed");
      }
      const [id, pid, command, mode, dead, sessionId, windowActivity] = shown.stdout.trim().split(SEP);
      if (id !== paneId) return undefined;
      const clients = await run(["list-clients", "-F", `#{session_id}${SEP}#{client_activity}`]);
      let clientActivityMs = 0;
      for (const line of clients.ok ? clients.stdout.split("\n") : []) {
        const [session, activity] = line.split(SEP);
        if (session === sessionId) clientActivityMs = Math.max(clientActivityMs, seconds(activity));
      }
      return {
        paneId: id,
        panePid: Number(pid),
        currentCommand: command ?? "",
        inMode: mode === "1",
        dead: dead === "1",
        sessionId: sessionId ?? "",
        windowActivityMs: seconds(windowActivity),
        clientActivityMs,
      };
    },
    typeLine: async (paneId, text) => {
      const target = checkPane(paneId);
      // tmux reads an argument ending in ";" as a command separator, and a control character would be a key.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: exactly the characters refused
      if (text.endsWith(";") || /[\u0000-\u001f\u007f]/.test(text))
        throw new TmuxError("failed", "text tmux cannot type literally");
      const typed = await run(["send-keys", "-t", target, "-l", "--", text]);
      if (!typed.ok) throw new TmuxError("failed", "tmux send-keys failed");
      // An Enter that arrives with the burst of typed keys is taken as part of a paste by some TUIs (Claude Code
      // leaves the line unsent): it comes on its own, a moment later.
      await Bun.sleep(ENTER_AFTER_MS);
      const entered = await run(["send-keys", "-t", target, "Enter"]);
      if (!entered.ok) throw new TmuxError("failed", "tmux send-keys Enter failed");
    },
  };
};
