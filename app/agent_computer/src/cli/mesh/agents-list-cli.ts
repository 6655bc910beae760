import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { type DirectoryEntry, type DirectoryResult, listAgents } from "../../domain/mesh/directory.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, PRESENCE_FALLBACK, tokenFileSchema } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";

export const agentsListOptionsSchema = z.object({
  includeStale: z._default(z.boolean(), false).check(z.describe("also list agents whose latest session expired (alive: false)")),
  view: z._default(z.enum(["list", "topology"]), "list").check(z.describe("list, or topology: live agents grouped by class")),
  agentId: z
    .optional(agentIdSchema)
    .check(z.describe("your own agent id: renews your presence while you look (needs your token)")),
  tokenFile: tokenFileSchema,
});

export type AgentsListOptions = z.output<typeof agentsListOptionsSchema>;
export type AgentsListOutput = DirectoryResult & { view: "list" | "topology"; classes?: Record<string, string[]> };

const runAgentsList = async (options: AgentsListOptions, deps: DepsOf<"store">): Promise<AgentsListOutput> => {
  const token = options.agentId ? deps.credential?.token : undefined;
  const result = await listAgents(deps, { includeStale: options.includeStale, agentId: options.agentId, token });
  if (options.view === "list") return { ...result, view: "list" };
  const classes: Record<string, string[]> = {};
  for (const a of result.agents.filter((x) => x.alive)) classes[a.class] = [...(classes[a.class] ?? []), a.agent_id];
  return { ...result, view: "topology", classes };
};

const row = (a: DirectoryEntry): string =>
  `${a.alive ? "●" : "○"} ${a.agent_id} [${a.class}] (${a.liveness_evidence}) ${neutralizeLine(a.role ?? "-")} @${neutralizeLine(a.host)} repo ${neutralizeLine(a.repo ?? "-")} caps ${a.caps.join(",") || "-"}\n` +
  `    status: ${neutralizeLine(a.status ?? "-")}${a.status_age_s !== null ? ` (${a.status_age_s}s ago)` : ""} · last activity ${a.last_activity_at} · expires ${a.expires_at}`;

const render = (r: AgentsListOutput): string => {
  if (r.view === "topology") {
    return [`NOTE: ${r.note}`, ...Object.entries(r.classes ?? {}).map(([cls, ids]) => `${cls}: ${ids.join(", ")}`)].join("\n");
  }
  return [`NOTE: ${r.note}`, `${r.agents.length} agent(s)`, ...r.agents.map(row)].join("\n");
};

export default defineCommand({
  name: "agents-list-cli",
  summary: "the Agent Mesh directory: who is checked in, their role, repo, caps and status with its age",
  description:
    "Lists live agents (those that called the mesh within their own ttl) with host, role, repo, caps, status line with its " +
    'age in seconds (status_age_s), last activity and expires_at. "Alive" means "called the mesh within its own ttl", not ' +
    '"is reachable now". --include-stale adds agents whose latest session expired. --view topology groups live agents by ' +
    "class. Reading needs no token; passing your own --agent-id renews your presence and then needs your token.\n" +
    "liveness_evidence says what alive rests on: pid (the agent registered its process id on this host, and that " +
    "process is running, or is gone or was replaced by another with the same pid: proof either way) or age (its last " +
    "call within its ttl). A session whose process is proven dead is listed only with --include-stale. The session_id " +
    "is what register-agent-cli --force --expected-session-id compares against. An agent that is done leaves at once " +
    "with agent-checkout-cli (see agent-checkout-cli --help) instead of staying listed until its ttl runs out.",
  schema: agentsListOptionsSchema,
  writes: `nothing, unless --agent-id is given: then your presence renewal.${PRESENCE_FALLBACK}`,
  output:
    '{"view":"list|topology","agents":[{"agent_id","class","alive","host","role","repo","caps","status","status_age_s",' +
    '"last_activity_at","expires_at","session_id","liveness_evidence":"pid|age"}],"classes"?:{"<class>":["agent_id"]},"note","warning"?}',
  errors: AUTHENTICATED_ERRORS,
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN", "AGENT_COMPUTER_HOST_ID"],
  examples: ["agents-list-cli", "agents-list-cli --include-stale --json", "agents-list-cli --view topology --agent-id builder-1"],
  needs: { deps: "store", credential: (o) => (o.agentId ? ownCredential({ ...o, agentId: o.agentId }) : undefined) },
  run: runAgentsList,
  render,
});
