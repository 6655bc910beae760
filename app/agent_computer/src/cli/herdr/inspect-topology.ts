import * as z from "zod/mini";
import type { HerdrReader } from "../../adapters/herdr/reader.ts";
import type { HerdrAgent, HerdrPane } from "../../adapters/herdr/records.ts";
import { viaHerdr } from "../../domain/herdr/herdr-failure.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { neutralizeFields } from "../kernel/output.ts";
import { INSPECT_ENV, INSPECT_ERRORS, readerFor } from "./inspect-shared.ts";

export const inspectTopologyOptionsSchema = z.object({
  workspace: z
    .optional(z.string().check(z.regex(/^[A-Za-z0-9]+$/, "must be a workspace id such as w1")))
    .check(z.describe("only this workspace (its tabs, panes and agents)")),
});
type InspectTopologyOptions = z.output<typeof inspectTopologyOptionsSchema>;

type Workspaces = Awaited<ReturnType<HerdrReader["workspaces"]>>;
type Tabs = Awaited<ReturnType<HerdrReader["tabs"]>>;

interface Topology {
  workspaces: Workspaces;
  tabs: Tabs;
  panes: HerdrPane[];
  agents: HerdrAgent[];
}

const runTopology = async (options: InspectTopologyOptions, { ctx }: DepsOf<"none">): Promise<Topology> => {
  const reader = await readerFor(ctx);
  const only = options.workspace;
  const [workspaces, tabs, panes, agents] = await Promise.all([
    viaHerdr(reader.workspaces()),
    viaHerdr(reader.tabs(only)),
    viaHerdr(reader.panes(only)),
    viaHerdr(reader.agents()),
  ]);
  return {
    workspaces: only === undefined ? workspaces : workspaces.filter((w) => w.workspaceId === only),
    tabs,
    panes,
    agents: only === undefined ? agents : agents.filter((a) => a.workspaceId === only),
  };
};

// Every field of every record is Herdr's text (ids too): each record is shown through neutralizeFields, and records are
// matched to their parents on the raw values.
const render = (t: Topology): string => {
  const lines: string[] = [];
  const agentIn = new Map(t.agents.map((agent) => [agent.paneId, agent]));
  for (const rawWorkspace of t.workspaces) {
    const workspace = neutralizeFields(rawWorkspace);
    lines.push(`${workspace.workspaceId} ${workspace.label}${workspace.focused ? " (focused)" : ""} · ${workspace.status}`);
    for (const rawTab of t.tabs.filter((candidate) => candidate.workspaceId === rawWorkspace.workspaceId)) {
      const tab = neutralizeFields(rawTab);
      lines.push(`  ${tab.tabId} ${tab.label} · ${tab.paneCount} pane(s) · ${tab.status}`);
      for (const rawPane of t.panes.filter((candidate) => candidate.tabId === rawTab.tabId)) {
        const pane = neutralizeFields(rawPane);
        const agent = neutralizeFields(agentIn.get(rawPane.paneId));
        const who = agent
          ? `${agent.name ?? "(unnamed)"} ${agent.kind ?? "?"} ${agent.status} seq ${agent.stateChangeSeq}`
          : "shell";
        lines.push(`    ${pane.paneId} ${who} · ${pane.cwd ?? "-"}`);
      }
    }
  }
  if (t.workspaces.length === 0) lines.push("no workspaces");
  lines.push(`${t.agents.length} agent(s), ${t.agents.filter((a) => !a.name).length} without a Herdr name`);
  return lines.join("\n");
};

export default defineCommand({
  name: "herdr-inspect-cli topology",
  summary: "workspaces, tabs, panes and the agents in them, with status and state_change_seq",
  description:
    "Runs `herdr workspace list`, `tab list`, `pane list` and `agent list` (each once) and shows the tree. Agents " +
    "without a Herdr name cannot be coordinated: `herdr agent rename <pane> <name>` names one. Labels and paths are " +
    "untrusted text and shown escaped.",
  schema: inspectTopologyOptionsSchema,
  writes: "nothing.",
  output:
    '{"workspaces":[{"workspaceId","number","label","focused","paneCount","tabCount","activeTabId","status"}],' +
    '"tabs":[{"tabId","workspaceId","number","label","focused","paneCount","status"}],' +
    '"panes":[{"paneId","terminalId","workspaceId","tabId","cwd","label","kind","status","focused"}],' +
    '"agents":[{"paneId","terminalId","workspaceId","tabId","name","kind","status","stateChangeSeq","cwd","focused",' +
    '"interactiveReady","launchPending"}]}',
  errors: INSPECT_ERRORS,
  env: INSPECT_ENV,
  examples: ["herdr-inspect-cli topology", "herdr-inspect-cli topology --workspace w1 --json | jq '.agents[].name'"],
  needs: { deps: "none" },
  run: runTopology,
  render,
});
