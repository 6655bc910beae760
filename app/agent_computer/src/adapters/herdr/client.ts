// The only place in the app that runs `herdr`. It speaks the real Herdr 0.8 CLI contract
// (docs/herdr-facts.md §1): JSON envelopes on stdout, error envelopes on stderr, raw text for reads.
import { HerdrError } from "./failure-kinds.ts";
import {
  HERDR_AGENT_KINDS,
  type HerdrAgent,
  type HerdrAgentKind,
  type HerdrAgentStatus,
  type HerdrPane,
  type HerdrTab,
} from "./records.ts";
import { type HerdrRunOptions, runHerdrJson, runHerdrText, SCROLLING_READ_TIMEOUT_MS } from "./run-herdr.ts";

export { HERDR_ERROR_KINDS, HerdrError, type HerdrErrorKind, isHerdrError } from "./failure-kinds.ts";
export {
  HERDR_AGENT_KINDS,
  HERDR_AGENT_NAME_PATTERN,
  HERDR_AGENT_STATUSES,
  type HerdrAgent,
  type HerdrAgentKind,
  type HerdrAgentStatus,
  type HerdrPane,
  type HerdrTab,
} from "./records.ts";

export type HerdrReadSource = "visible" | "recent" | "recent-unwrapped" | "detection";

export interface HerdrWaitOptions {
  /** Statuses that end the wait; Herdr's default is idle, done and blocked. */
  until?: readonly HerdrAgentStatus[];
  /** Always bounded: Herdr waits forever without one. */
  timeoutMs: number;
  /** Ends the wait early by killing the `herdr` process (a watcher shutting down); it then rejects. */
  signal?: AbortSignal;
}

export interface HerdrReadOptions {
  /**
   * visible and detection read the screen as it is. recent (the default) reads scrollback: on an idle agent using
   * the alternate screen Herdr types mouse-wheel input into its terminal to scroll it and back (up to about 20 s).
   */
  source?: HerdrReadSource;
  lines?: number;
}

export interface HerdrStartOptions {
  name: string;
  kind: HerdrAgentKind;
  /** An existing pane running an idle shell (e.g. the root pane of `createTab`). */
  paneId: string;
  /** Startup budget, more than 3000 and at most 300000 ms; Herdr's default is 30000. */
  timeoutMs?: number;
  /** The agent's own CLI arguments, passed after `--`. */
  args?: readonly string[];
}

/** What the app may ask of Herdr. Every method throws HerdrError (with a closed `kind`) on failure. */
export interface Herdr {
  listAgents(): Promise<HerdrAgent[]>;
  /** target: a pane id or a unique agent name. */
  getAgent(target: string): Promise<HerdrAgent>;
  /**
   * Types `text` and submits it (Herdr sends Enter 300 ms later). Without `wait` it returns at once with the
   * agent as it was then. With `wait`, Herdr needs a state change within 5 s (agent_prompt_stalled, or plain
   * timeout when timeoutMs <= 5000) and then answers the agent's status when it is seen in `until`: only ever a
   * current status, so a turn too short to be observed working never satisfies `until: ["working"]`.
   */
  promptAgent(target: string, text: string, wait?: HerdrWaitOptions): Promise<HerdrAgent>;
  /**
   * Cursor-less: returns at once when the current status is already in `until`. A status seen while waiting also
   * counts even if the agent left it since (the record then carries the current cursor): read the agent again
   * before deciding anything on it.
   */
  waitAgent(target: string, options: HerdrWaitOptions): Promise<HerdrAgent>;
  readAgent(target: string, options?: HerdrReadOptions): Promise<string>;
  readPane(paneId: string, options?: HerdrReadOptions): Promise<string>;
  startAgent(options: HerdrStartOptions): Promise<{ agent: HerdrAgent; argv: string[] }>;
  /** A new tab (focus unchanged) whose root pane is a fresh shell in `cwd`. */
  createTab(options: { cwd: string; label?: string; workspaceId?: string }): Promise<{ tab: HerdrTab; rootPane: HerdrPane }>;
  getPane(paneId: string): Promise<HerdrPane>;
  /** Closes exactly this pane (its tab and workspace close with their last pane). */
  closePane(paneId: string): Promise<void>;
}

export interface HerdrOptions {
  bin?: string;
  /** The environment to curate (PATH, HOME, XDG_CONFIG_HOME, HERDR_*); default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Budget for commands that do not wait on an agent. */
  commandTimeoutMs?: number;
  maxBuffer?: number;
  /**
   * Kill a running herdr when this process exits (default true). A long-lived caller that cancels its own calls
   * (the wake watcher) passes false: execa's exit hook would otherwise re-raise SIGTERM in a daemon whose own
   * handler already took the signal, ending it without its shutdown.
   */
  killWithParent?: boolean;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;
const DEFAULT_START_TIMEOUT_MS = 30_000;
// Herdr's own deadline fires first; this margin only catches a CLI that hangs past it.
const WAIT_MARGIN_MS = 5_000;
const DEFAULT_MAX_BUFFER = 8 * 1024 * 1024;

/** An argument starting with `-` would be read by herdr as an option, so refuse it before running. */
const positional = (value: string, what: string, command: string): string => {
  if (value === "" || value.startsWith("-")) {
    throw new HerdrError("invalid_argument", `${what} must be non-empty and must not start with '-'`, { command });
  }
  return value;
};

/**
 * Herdr takes a prompt's text verbatim, `-` and all, except that it strips `--session <name>` and `--session=<name>`
 * from anywhere in argv before parsing (src/session.rs): those two shapes would not arrive as text.
 */
export const misreadPromptText = (text: string): boolean => text === "--session" || text.startsWith("--session=");

const promptText = (text: string, command: string): string => {
  if (text === "") throw new HerdrError("invalid_argument", "prompt text must be non-empty", { command });
  if (misreadPromptText(text)) {
    throw new HerdrError(
      "invalid_argument",
      "prompt text must not be '--session' or begin with '--session=' (herdr takes it as its session flag)",
      {
        command,
      },
    );
  }
  return text;
};

const waitArgs = (wait: HerdrWaitOptions): string[] => [
  ...(wait.until ?? []).flatMap((status) => ["--until", status]),
  "--timeout",
  String(Math.max(0, Math.trunc(wait.timeoutMs))),
];

const readArgs = (options: HerdrReadOptions = {}): string[] => [
  "--source",
  options.source ?? "recent",
  ...(options.lines === undefined ? [] : ["--lines", String(Math.max(0, Math.trunc(options.lines)))]),
  "--format",
  "text",
];

/** A scrolling read takes Herdr up to about 20 s; only the screen-only sources fit the quick budget. */
const readBudget = (read: HerdrReadOptions = {}, quick: number): number => {
  const source = read.source ?? "recent";
  return source === "visible" || source === "detection" ? quick : Math.max(quick, SCROLLING_READ_TIMEOUT_MS);
};

export const createHerdr = (options: HerdrOptions = {}): Herdr => {
  const run: HerdrRunOptions = {
    bin: options.bin ?? "herdr",
    env: options.env ?? process.env,
    cwd: options.cwd ?? "/",
    maxBuffer: options.maxBuffer ?? DEFAULT_MAX_BUFFER,
    killWithParent: options.killWithParent ?? true,
  };
  const quick = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;

  return {
    listAgents: async () => (await runHerdrJson(["agent", "list"], "agent_list", quick, run)).agents,
    getAgent: async (target) =>
      (await runHerdrJson(["agent", "get", positional(target, "target", "herdr agent get")], "agent_info", quick, run)).agent,
    promptAgent: async (target, text, wait) => {
      const command = "herdr agent prompt";
      const args = ["agent", "prompt", positional(target, "target", command), promptText(text, command)];
      if (!wait) return (await runHerdrJson(args, "agent_prompted", quick, run)).agent;
      const budget = wait.timeoutMs + WAIT_MARGIN_MS;
      return (await runHerdrJson([...args, "--wait", ...waitArgs(wait)], "agent_prompted", budget, run, wait.signal)).agent;
    },
    waitAgent: async (target, wait) => {
      const args = ["agent", "wait", positional(target, "target", "herdr agent wait"), ...waitArgs(wait)];
      return (await runHerdrJson(args, "agent_info", wait.timeoutMs + WAIT_MARGIN_MS, run, wait.signal)).agent;
    },
    readAgent: async (target, read) =>
      runHerdrText(
        ["agent", "read", positional(target, "target", "herdr agent read"), ...readArgs(read)],
        readBudget(read, quick),
        run,
      ),
    readPane: async (paneId, read) =>
      runHerdrText(
        ["pane", "read", positional(paneId, "pane id", "herdr pane read"), ...readArgs(read)],
        readBudget(read, quick),
        run,
      ),
    startAgent: async (start) => {
      const command = "herdr agent start";
      // herdr itself refuses an unknown kind with a bare usage error; say which value was wrong instead.
      if (!(HERDR_AGENT_KINDS as readonly string[]).includes(start.kind)) {
        throw new HerdrError("invalid_argument", `unsupported agent kind ${start.kind}`, { command });
      }
      const timeoutMs = start.timeoutMs ?? DEFAULT_START_TIMEOUT_MS;
      const args = [
        "agent",
        "start",
        positional(start.name, "agent name", command),
        "--kind",
        start.kind,
        "--pane",
        positional(start.paneId, "pane id", command),
        "--timeout",
        String(timeoutMs),
        ...(start.args && start.args.length > 0 ? ["--", ...start.args] : []),
      ];
      return runHerdrJson(args, "agent_started", timeoutMs + WAIT_MARGIN_MS, run);
    },
    createTab: async (tab) => {
      const args = ["tab", "create", "--cwd", tab.cwd, "--no-focus"];
      if (tab.label !== undefined) args.push("--label", tab.label);
      if (tab.workspaceId !== undefined) args.push("--workspace", tab.workspaceId);
      const created = await runHerdrJson(args, "tab_created", quick, run);
      return { tab: created.tab, rootPane: created.root_pane };
    },
    getPane: async (paneId) =>
      (await runHerdrJson(["pane", "get", positional(paneId, "pane id", "herdr pane get")], "pane_info", quick, run)).pane,
    closePane: async (paneId) => {
      await runHerdrJson(["pane", "close", positional(paneId, "pane id", "herdr pane close")], "ok", quick, run);
    },
  };
};
