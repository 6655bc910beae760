// A Herdr client that can only look: every method maps to one fixed `herdr` command line that changes nothing, and
// the type has no method that could prompt, start, rename, focus or close anything. herdr-inspect-cli gets only
// this. One read is not input-free: a `recent` pane read of an idle alternate-screen agent makes Herdr scroll it.
import * as z from "zod/mini";
import { HerdrError } from "./failure-kinds.ts";
import type { HerdrAgent, HerdrPane, HerdrTabInfo, HerdrWorkspace } from "./records.ts";
import {
  curateHerdrEnv,
  type HerdrRunOptions,
  runHerdrJson,
  runHerdrText,
  SCROLLING_READ_TIMEOUT_MS,
  schemaIssues,
} from "./run-herdr.ts";

export interface HerdrServerStatus {
  running: boolean;
  version: string | null;
  protocol: number | null;
  /** Whether this herdr CLI and the server speak the same protocol (null when no server answers). */
  compatible: boolean | null;
  socket: string | null;
  session: string | null;
  restartNeeded: boolean | null;
  clientVersion: string | null;
  clientProtocol: number | null;
}

export interface HerdrIntegration {
  /** The integration's label as Herdr prints it (e.g. `claude`), untrusted text. */
  label: string;
  /** Herdr's state words: `not installed`, `current (v7)`, `outdated (v6 < v7)`, … */
  state: string;
  path: string | null;
}

export interface HerdrSession {
  name: string;
  isDefault: boolean;
  running: boolean;
  socketPath: string;
}

export interface HerdrPaneRead {
  /**
   * visible: the screen as it is, no input sent. recent: scrollback; on an idle agent using the alternate screen
   * Herdr gets it by typing mouse-wheel input into the agent's terminal and scrolling back, up to about 20 s.
   */
  source: "visible" | "recent";
  lines?: number;
}

/** A view of Herdr. No method changes anything in Herdr; adding one that does is a review failure. */
export interface HerdrReader {
  status(): Promise<HerdrServerStatus>;
  integrations(): Promise<HerdrIntegration[]>;
  sessions(): Promise<HerdrSession[]>;
  workspaces(): Promise<HerdrWorkspace[]>;
  tabs(workspaceId?: string): Promise<HerdrTabInfo[]>;
  panes(workspaceId?: string): Promise<HerdrPane[]>;
  agents(): Promise<HerdrAgent[]>;
  readPane(paneId: string, read: HerdrPaneRead): Promise<string>;
}

/** Every command line a reader may run, by its first two words: the test holds the reader to this list. */
export const HERDR_READ_COMMANDS = [
  "status",
  "integration status",
  "session list",
  "workspace list",
  "tab list",
  "pane list",
  "agent list",
  "pane read",
] as const;

const statusSchema = z.object({
  client: z.nullish(z.partial(z.object({ version: z.nullish(z.string()), protocol: z.nullish(z.number()) }))),
  server: z.object({
    running: z.boolean(),
    version: z.nullish(z.string()),
    protocol: z.nullish(z.number()),
    compatible: z.nullish(z.boolean()),
    socket: z.nullish(z.string()),
    session: z.nullish(z.string()),
    restart_needed: z.nullish(z.boolean()),
  }),
});

const sessionsSchema = z.object({
  sessions: z.array(z.object({ name: z.string(), default: z.boolean(), running: z.boolean(), socket_path: z.string() })),
});

/** `<label>: <state> (<path>)`, Herdr's integration status line; the state may hold parentheses too (`current (v7)`). */
const INTEGRATION_LINE = /^([^:]+): (.+?)(?: \(([^()]*)\))?$/;

const protocolError = (command: string, detail: string): HerdrError =>
  new HerdrError("protocol", `${command} answered ${detail}`, { command });

const parseJsonLine = <T>(text: string, schema: z.ZodMiniType<T>, command: string): T => {
  let value: unknown;
  try {
    value = JSON.parse(text.trim());
  } catch {
    throw protocolError(command, "with output that is not JSON");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw protocolError(command, `a document that does not match Herdr's shape: ${schemaIssues(parsed.error)}`);
  return parsed.data;
};

const paneIdArg = (paneId: string): string => {
  if (!/^[A-Za-z0-9]+:[A-Za-z0-9]+$/.test(paneId)) {
    throw new HerdrError("invalid_argument", "pane id must look like w1:p2", { command: "herdr pane read" });
  }
  return paneId;
};

const workspaceArg = (workspaceId: string | undefined): string[] => {
  if (workspaceId === undefined) return [];
  if (!/^[A-Za-z0-9]+$/.test(workspaceId)) {
    throw new HerdrError("invalid_argument", "workspace id must look like w1", { command: "herdr list" });
  }
  return ["--workspace", workspaceId];
};

export const createHerdrReader = (options: {
  bin?: string;
  env?: Readonly<Record<string, string | undefined>>;
  commandTimeoutMs?: number;
  maxBuffer?: number;
}): HerdrReader => {
  const run: HerdrRunOptions = {
    bin: options.bin ?? "herdr",
    env: curateHerdrEnv(options.env ?? process.env),
    cwd: "/",
    maxBuffer: options.maxBuffer ?? 8 * 1024 * 1024,
    killWithParent: true,
  };
  const quick = options.commandTimeoutMs ?? 10_000;
  return {
    status: async () => {
      const doc = parseJsonLine(await runHerdrText(["status", "--json"], quick, run), statusSchema, "herdr status");
      return {
        running: doc.server.running,
        version: doc.server.version ?? null,
        protocol: doc.server.protocol ?? null,
        compatible: doc.server.compatible ?? null,
        socket: doc.server.socket ?? null,
        session: doc.server.session ?? null,
        restartNeeded: doc.server.restart_needed ?? null,
        clientVersion: doc.client?.version ?? null,
        clientProtocol: doc.client?.protocol ?? null,
      };
    },
    integrations: async () => {
      const text = await runHerdrText(["integration", "status"], quick, run);
      return text
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => {
          const match = INTEGRATION_LINE.exec(line);
          return match
            ? { label: match[1] as string, state: match[2] as string, path: match[3] ?? null }
            : { label: line, state: "unrecognised", path: null };
        });
    },
    sessions: async () => {
      const doc = parseJsonLine(
        await runHerdrText(["session", "list", "--json"], quick, run),
        sessionsSchema,
        "herdr session list",
      );
      return doc.sessions.map((s) => ({ name: s.name, isDefault: s.default, running: s.running, socketPath: s.socket_path }));
    },
    workspaces: async () => (await runHerdrJson(["workspace", "list"], "workspace_list", quick, run)).workspaces,
    tabs: async (workspaceId) => (await runHerdrJson(["tab", "list", ...workspaceArg(workspaceId)], "tab_list", quick, run)).tabs,
    panes: async (workspaceId) =>
      (await runHerdrJson(["pane", "list", ...workspaceArg(workspaceId)], "pane_list", quick, run)).panes,
    agents: async () => (await runHerdrJson(["agent", "list"], "agent_list", quick, run)).agents,
    readPane: async (paneId, read) =>
      runHerdrText(
        [
          "pane",
          "read",
          paneIdArg(paneId),
          "--source",
          read.source,
          ...(read.lines === undefined ? [] : ["--lines", String(Math.max(0, Math.trunc(read.lines)))]),
          "--format",
          "text",
        ],
        read.source === "recent" ? Math.max(quick, SCROLLING_READ_TIMEOUT_MS) : quick,
        run,
      ),
  };
};
