import * as z from "zod/mini";
import { agentId } from "../../domain/identity/names.ts";
import { type ListResult, listTasks } from "../../domain/tasks/list.ts";
import { TASK_STATES } from "../../store/port-identity.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, PRESENCE_FALLBACK, tokenFileSchema } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { cursorSchema, decodeCursor, encodeCursor, fitPage, limitSchema, type Paged } from "../kernel/paging.ts";
import { AUTH_ENV } from "./options.ts";

export const listOptionsSchema = z.object({
  agentId: agentId("the agent asking (authenticated by its token)"),
  scope: z._default(z.enum(["mine", "all"]), "mine").check(z.describe("mine: tasks you posted or hold; all: every task")),
  state: z
    ._default(z.array(z.enum(TASK_STATES)).check(z.maxLength(6)), [])
    .check(z.describe("only tasks in these states (default every state)")),
  limit: limitSchema(50, 200, "tasks, newest first,"),
  cursor: cursorSchema,
  tokenFile: tokenFileSchema,
});

const NAME = "agent-task-cli list";
type ListPage = ListResult & Paged;

export type ListOptions = z.output<typeof listOptionsSchema>;

const runList = async (options: ListOptions, deps: DepsOf<"store">): Promise<ListPage> => {
  const query = { agentId: options.agentId, scope: options.scope, state: [...options.state].sort() };
  const at = options.cursor ? decodeCursor(NAME, query, options.cursor, ["number", "string"]) : undefined;
  const before = at ? { createdAt: at[0] as number, id: at[1] as string } : undefined;
  const r = await listTasks(deps, {
    agentId: options.agentId,
    token: deps.credential?.token,
    scope: options.scope,
    states: options.state,
    limit: options.limit,
    before,
  });
  return fitPage(r.tasks, (shown) => {
    const cut = r.tasks.length - shown.length;
    const last = shown.at(-1);
    const more = cut > 0 || r.older_tasks > 0;
    return {
      ...r,
      tasks: [...shown],
      next_cursor: more && last ? encodeCursor(NAME, query, [Date.parse(last.created_at), last.id]) : null,
      not_shown: r.older_tasks + cut,
    };
  });
};

const render = (r: ListPage): string => {
  const lines = [`NOTE: ${r.note}`, `${r.tasks.length} task(s)`];
  for (const t of r.tasks) {
    lines.push(
      "",
      `${t.id} [${t.priority}] ${t.state} · from ${t.poster} · to ${t.assignee ?? "-"} · needs ${t.required_caps.join(",")}`,
      `  ${neutralizeLine(t.title)}`,
      ...t.body.split("\n").map((line) => `  | ${line}`),
      ...(t.result ? [`  result: ${neutralizeLine(t.result)}`] : []),
      ...(t.reason ? [`  reason: ${neutralizeLine(t.reason)}`] : []),
    );
  }
  return lines.join("\n");
};

export default defineCommand({
  name: "agent-task-cli list",
  summary: "list tasks you posted or hold (or all), newest first",
  description:
    "Shows tasks with their state (queued, assigned, accepted, completed, rejected, cancelled), poster, assignee, required " +
    "capabilities, result or reason, and version. Titles and bodies are shown with terminal control characters made " +
    "visible. Renews your presence.",
  schema: listOptionsSchema,
  writes: `only your presence renewal.${PRESENCE_FALLBACK}`,
  output:
    '{"agent_id","tasks":[{"id","title","body","required_caps","priority","state","poster","assignee","result","reason",' +
    '"version","created_at","updated_at"}],"older_tasks","next_cursor","not_shown","note","warning"?}',
  errors: AUTHENTICATED_ERRORS,
  env: AUTH_ENV,
  examples: ["agent-task-cli list --agent-id builder-1", "agent-task-cli list --agent-id lead --scope all --state queued --json"],
  needs: { deps: "store", credential: ownCredential },
  run: runList,
  render,
});
