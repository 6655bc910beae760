// Herdr's JSON records (docs/herdr-facts.md §1.8) parsed with zod and handed to the app in camelCase.
// Only the fields callers use are read; Herdr may add fields without breaking us.
import * as z from "zod/mini";

export const HERDR_AGENT_STATUSES = ["idle", "working", "blocked", "done", "unknown"] as const;
export type HerdrAgentStatus = (typeof HERDR_AGENT_STATUSES)[number];

/** Kinds `herdr agent start --kind` accepts in 0.8; the CLI refuses any other with a usage error. */
export const HERDR_AGENT_KINDS = [
  "pi",
  "claude",
  "codex",
  "gemini",
  "cursor",
  "devin",
  "agy",
  "cline",
  "omp",
  "mastracode",
  "opencode",
  "copilot",
  "kimi",
  "kiro",
  "droid",
  "amp",
  "grok",
  "hermes",
  "kilo",
  "qodercli",
  "maki",
] as const;
export type HerdrAgentKind = (typeof HERDR_AGENT_KINDS)[number];

/** Herdr's agent name rule; other names are refused with invalid_agent_name. */
export const HERDR_AGENT_NAME_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

// Herdr omits absent optionals; the published schema also allows null, so accept both.
const optionalText = z.pipe(
  z.nullish(z.string()),
  z.transform((value: string | null | undefined) => value ?? undefined),
);

const agentInfoSchema = z.pipe(
  z.object({
    terminal_id: z.string(),
    pane_id: z.string(),
    workspace_id: z.string(),
    tab_id: z.string(),
    name: optionalText,
    agent: optionalText,
    agent_status: z.enum(HERDR_AGENT_STATUSES),
    state_change_seq: z._default(z.number().check(z.int(), z.nonnegative()), 0),
    cwd: optionalText,
    focused: z.boolean(),
    interactive_ready: z.optional(z.boolean()),
    launch_pending: z.optional(z.boolean()),
  }),
  z.transform((info) => ({
    paneId: info.pane_id,
    terminalId: info.terminal_id,
    workspaceId: info.workspace_id,
    tabId: info.tab_id,
    name: info.name,
    kind: info.agent,
    status: info.agent_status,
    /** App-global cursor: compare with `>`, never assume +1 (other agents take numbers too). */
    stateChangeSeq: info.state_change_seq,
    cwd: info.cwd,
    focused: info.focused,
    interactiveReady: info.interactive_ready === true,
    launchPending: info.launch_pending === true,
  })),
);
export type HerdrAgent = z.output<typeof agentInfoSchema>;

const paneInfoSchema = z.pipe(
  z.object({
    pane_id: z.string(),
    terminal_id: z.string(),
    workspace_id: z.string(),
    tab_id: z.string(),
    cwd: optionalText,
    label: optionalText,
    agent: optionalText,
    agent_status: z.enum(HERDR_AGENT_STATUSES),
    focused: z.boolean(),
  }),
  z.transform((info) => ({
    paneId: info.pane_id,
    terminalId: info.terminal_id,
    workspaceId: info.workspace_id,
    tabId: info.tab_id,
    cwd: info.cwd,
    label: info.label,
    /** The detected agent kind, absent for a plain shell. */
    kind: info.agent,
    status: info.agent_status,
    focused: info.focused,
  })),
);
export type HerdrPane = z.output<typeof paneInfoSchema>;

const tabInfoSchema = z.pipe(
  z.object({ tab_id: z.string(), workspace_id: z.string(), label: z.string(), pane_count: z.number().check(z.int()) }),
  z.transform((info) => ({ tabId: info.tab_id, workspaceId: info.workspace_id, label: info.label, paneCount: info.pane_count })),
);
export type HerdrTab = z.output<typeof tabInfoSchema>;

const workspaceInfoSchema = z.pipe(
  z.object({
    workspace_id: z.string(),
    number: z.number().check(z.int()),
    label: z.string(),
    focused: z.boolean(),
    pane_count: z.number().check(z.int()),
    tab_count: z.number().check(z.int()),
    active_tab_id: z.nullish(z.string()),
    agent_status: z.enum(HERDR_AGENT_STATUSES),
  }),
  z.transform((info) => ({
    workspaceId: info.workspace_id,
    number: info.number,
    label: info.label,
    focused: info.focused,
    paneCount: info.pane_count,
    tabCount: info.tab_count,
    activeTabId: info.active_tab_id ?? undefined,
    status: info.agent_status,
  })),
);
export type HerdrWorkspace = z.output<typeof workspaceInfoSchema>;

const tabListEntrySchema = z.pipe(
  z.object({
    tab_id: z.string(),
    workspace_id: z.string(),
    number: z.number().check(z.int()),
    label: z.string(),
    focused: z.boolean(),
    pane_count: z.number().check(z.int()),
    agent_status: z.enum(HERDR_AGENT_STATUSES),
  }),
  z.transform((info) => ({
    tabId: info.tab_id,
    workspaceId: info.workspace_id,
    number: info.number,
    label: info.label,
    focused: info.focused,
    paneCount: info.pane_count,
    status: info.agent_status,
  })),
);
export type HerdrTabInfo = z.output<typeof tabListEntrySchema>;

/** The `result` of each success envelope the adapter reads, keyed by its `type` tag. */
export const resultSchemas = {
  agent_list: z.object({ agents: z.array(agentInfoSchema) }),
  agent_info: z.object({ agent: agentInfoSchema }),
  agent_prompted: z.object({ agent: agentInfoSchema }),
  agent_started: z.object({ agent: agentInfoSchema, argv: z.array(z.string()) }),
  tab_created: z.object({ tab: tabInfoSchema, root_pane: paneInfoSchema }),
  pane_info: z.object({ pane: paneInfoSchema }),
  workspace_list: z.object({ workspaces: z.array(workspaceInfoSchema) }),
  tab_list: z.object({ tabs: z.array(tabListEntrySchema) }),
  pane_list: z.object({ panes: z.array(paneInfoSchema) }),
  ok: z.object({}),
} as const;
export type HerdrResultType = keyof typeof resultSchemas;
