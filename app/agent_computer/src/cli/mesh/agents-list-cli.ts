import * as z from "zod/mini";
import { agentIdSchema, capabilitySchema } from "../../domain/identity/names.ts";
import {
  ALIVE_MEANS,
  type DirectoryEntry,
  type DirectoryInput,
  type DirectoryTopology,
  directoryTopology,
  listAgents,
} from "../../domain/mesh/directory.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, PRESENCE_FALLBACK, tokenFileSchema } from "../kernel/credential.ts";
import { oneLine } from "../kernel/one-line.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { cursorSchema, decodeCursor, encodeCursor, fitPage, limitSchema, type Paged } from "../kernel/paging.ts";

const NAME = "agents-list-cli";
const TOPOLOGY_HOSTS = 20;

export const agentsListOptionsSchema = z.object({
  status: z
    .optional(z.enum(["live", "stale", "all"]))
    .check(z.describe("live (default): within their ttl; stale: latest session expired or ended; all: both")),
  includeStale: z._default(z.boolean(), false).check(z.describe("the same as --status all")),
  role: z.optional(oneLine(64, { min: 1 })).check(z.describe("only agents whose session has this role (exactly)")),
  repo: z.optional(oneLine(256, { min: 1 })).check(z.describe("only agents whose session works on this repo (exactly)")),
  capabilities: z
    .optional(z.array(capabilitySchema).check(z.maxLength(32)))
    .check(z.describe("only agents whose session offers every one of these")),
  host: z.optional(oneLine(256, { min: 1 })).check(z.describe("only agents on this host (exactly)")),
  namePrefix: z.optional(oneLine(64, { min: 1 })).check(z.describe("only agents whose name starts with this")),
  query: z
    .optional(oneLine(200, { min: 1 }))
    .check(z.describe("only agents whose name or description holds this text (ASCII case ignored)")),
  view: z
    ._default(z.enum(["list", "topology"]), "list")
    .check(z.describe("list, or topology: live agents counted per class and per host")),
  limit: limitSchema(50, 500, "agents"),
  cursor: cursorSchema,
  agentId: z
    .optional(agentIdSchema)
    .check(z.describe("your own agent id: renews your presence while you look (needs your token)")),
  tokenFile: tokenFileSchema,
});

export type AgentsListOptions = z.output<typeof agentsListOptionsSchema>;

type Totals = { live: number; stale: number };
export type AgentsListOutput =
  | ({ view: "list"; status: string; totals: Totals; agents: DirectoryEntry[]; note?: string; warning?: string } & Paged)
  | ({ view: "topology"; warning?: string; hosts_not_shown: number } & DirectoryTopology);

/** The options that choose which agents, in which order: a cursor is valid only with the same ones. */
const queryOf = (o: AgentsListOptions) => ({
  status: o.status ?? (o.includeStale ? "all" : "live"),
  role: o.role,
  repo: o.repo,
  capabilities: o.capabilities,
  host: o.host,
  namePrefix: o.namePrefix,
  query: o.query,
});

const runAgentsList = async (options: AgentsListOptions, deps: DepsOf<"store">): Promise<AgentsListOutput> => {
  const query = queryOf(options);
  // Checked before anything is read or written (a presence renewal).
  const after = options.cursor ? (decodeCursor(NAME, query, options.cursor, ["string"])[0] as string) : undefined;
  const input: DirectoryInput = {
    filter: query,
    agentId: options.agentId,
    token: options.agentId ? deps.credential?.token : undefined,
  };
  if (options.view === "topology") {
    const topology = await directoryTopology(deps, input);
    const hosts = topology.hosts.slice(0, TOPOLOGY_HOSTS);
    return { view: "topology", ...topology, hosts, hosts_not_shown: topology.hosts.length - hosts.length };
  }
  const r = await listAgents(deps, { ...input, page: { after, limit: options.limit } });
  const next = (name: string) => encodeCursor(NAME, query, [name]);
  return fitPage(r.agents, (shown) => {
    const cut = r.agents.length - shown.length;
    const last = shown.at(-1)?.agent_id;
    const cursor = cut > 0 && last !== undefined ? next(last) : r.next_after === null ? null : next(r.next_after);
    return {
      view: "list" as const,
      status: query.status,
      totals: r.totals,
      agents: [...shown],
      next_cursor: cursor,
      not_shown: r.following + cut,
      ...(r.note ? { note: r.note } : {}),
      ...(r.warning ? { warning: r.warning } : {}),
    };
  });
};

const ago = (seconds: number): string =>
  seconds < 120 ? `${seconds}s` : seconds < 7200 ? `${Math.floor(seconds / 60)}m` : `${Math.floor(seconds / 3600)}h`;

/** One short line per agent; the fields nobody asked for (session id, timestamps) stay in --json. */
const row = (a: DirectoryEntry): string => {
  const status =
    a.status === null ? "" : ` · ${neutralizeLine(a.status)}${a.status_age_s === null ? "" : ` (${ago(a.status_age_s)})`}`;
  const where = [a.role && `role ${a.role}`, a.repo && `repo ${a.repo}`, a.caps.length > 0 && `caps ${a.caps.join(",")}`]
    .filter((part): part is string => typeof part === "string")
    .map(neutralizeLine)
    .join(" ");
  const evidence = a.liveness_evidence === "pid" ? " (pid)" : "";
  return `${a.alive ? "●" : "○"} ${a.agent_id} [${a.class}]${evidence} @${neutralizeLine(a.host)}${where ? ` ${where}` : ""}${status}`;
};

const render = (r: AgentsListOutput): string => {
  if (r.view === "topology") {
    const lines = [`${r.live} live agent(s) by class: ${r.classes.map((c) => `${c.class} ${c.count}`).join(", ") || "-"}`];
    lines.push(
      `by host (${r.hosts.length + r.hosts_not_shown} host(s)): ${r.hosts.map((h) => `${neutralizeLine(h.host)} ${h.count}`).join(", ") || "-"}`,
    );
    if (r.hosts_not_shown > 0)
      lines.push(`${r.hosts_not_shown} more host(s) not shown: narrow with --host, --role, --repo or --capabilities`);
    return lines.join("\n");
  }
  const header = `${r.totals.live} live, ${r.totals.stale} stale match; ${r.agents.length} ${r.status === "all" ? "" : `${r.status} `}shown, by name`;
  return [header, ...(r.note ? [`note: ${r.note}`] : []), ...r.agents.map(row)].join("\n");
};

export default defineCommand({
  name: NAME,
  summary: "the Agent Mesh directory: who is checked in, filtered and paged, with totals by liveness",
  description:
    "Lists agents by name, one short line each (host, role, repo, caps, status line with its age), after a header with " +
    "the totals by liveness of the agents your filters match. Filters combine (AND): --role, --repo, --host exactly, " +
    "--capabilities all of them, --name-prefix, --query a substring of the name or description. A page holds at most " +
    "--limit agents (fewer when their lines would pass the 16 KB output budget); the last line then says how many more " +
    "match and the exact command for the next page (--json: next_cursor). Pages are by name, so agents that check in " +
    "between two pages are neither repeated nor skipped. --view topology counts live agents per class and per host " +
    `instead. ${ALIVE_MEANS[0]?.toUpperCase()}${ALIVE_MEANS.slice(1)}. liveness_evidence says what alive rests on: pid ` +
    "(the agent registered its process id on this host, and that process is running, or is gone or was replaced: proof " +
    "either way) or age (its last call within its ttl); such an agent's line says (pid). A session whose process is " +
    "proven dead is listed only with --status all. The session_id (--json) is what register-agent-cli --force " +
    "--expected-session-id compares against. An agent that is done leaves at once with agent-checkout-cli (see agent-checkout-cli --help). Reading " +
    "needs no token; passing your own --agent-id renews your presence and then needs your token.",
  schema: agentsListOptionsSchema,
  flags: { capabilities: { aliases: ["--caps"] } },
  writes: `nothing, unless --agent-id is given: then your presence renewal.${PRESENCE_FALLBACK}`,
  output:
    '{"view":"list","status","totals":{"live","stale"},"agents":[{"agent_id","class","alive","host","role","repo","caps",' +
    '"status","status_age_s","last_activity_at","expires_at","session_id","liveness_evidence":"pid|age"}],"next_cursor",' +
    '"not_shown","note"?,"warning"?} or {"view":"topology","live","classes":[{"class","count"}],"hosts":[{"host","count"}],"hosts_not_shown"}',
  errors: AUTHENTICATED_ERRORS,
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN", "AGENT_COMPUTER_HOST_ID"],
  examples: [
    "agents-list-cli",
    "agents-list-cli --role reviewer --capabilities ts --limit 20 --json",
    "agents-list-cli --status all --query billing",
    "agents-list-cli --view topology --agent-id builder-1",
  ],
  needs: { deps: "store", credential: (o) => (o.agentId ? ownCredential({ ...o, agentId: o.agentId }) : undefined) },
  run: runAgentsList,
  render,
});
