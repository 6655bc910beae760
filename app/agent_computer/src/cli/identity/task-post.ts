import * as z from "zod/mini";
import { agentId, capabilitySchema } from "../../domain/identity/names.ts";
import { type PostResult, postTask } from "../../domain/tasks/post.ts";
import { TASK_PRIORITIES } from "../../store/port-identity.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { oneLine } from "../kernel/one-line.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { MESSAGE_RATE_ENV, RATE_RULE, REACH_RULE } from "../kernel/reach-help.ts";
import { AUTH_ENV } from "./options.ts";

export const postOptionsSchema = z.object({
  agentId: agentId("the posting agent (authenticated by its token)"),
  title: oneLine(200, { min: 1, describe: "one line saying what is to be done" }),
  body: z.string().check(z.minLength(1), z.maxLength(16_384), z.describe("the details, at most 16384 characters")),
  requireCap: z
    .array(capabilitySchema)
    .check(z.minLength(1), z.maxLength(32), z.describe("capabilities the assignee must have (all of them)")),
  priority: z._default(z.enum(TASK_PRIORITIES), "normal").check(z.describe("queued tasks are handed out most urgent first")),
  tokenFile: tokenFileSchema,
});

export type PostOptions = z.output<typeof postOptionsSchema>;

const runPost = async (options: PostOptions, deps: DepsOf<"store">): Promise<PostResult> =>
  postTask(deps, {
    agentId: options.agentId,
    token: deps.credential?.token,
    title: options.title,
    body: options.body,
    requireCaps: options.requireCap,
    priority: options.priority,
  });

const render = (r: PostResult): string =>
  [`${r.task.id} [${r.task.priority}] ${neutralizeLine(r.task.title)}: ${r.routed}`, `  ${r.note}`].join("\n");

export default defineCommand({
  name: "agent-task-cli post",
  summary: "post a task; it goes to the least-loaded live capable agent or waits in the queue",
  description:
    "Stores the task and routes it in the same transaction: among live agents (not you) whose registered capabilities " +
    "include every --require-cap and whose contact policy accepts you, the one with the fewest assigned or accepted " +
    "tasks gets it, ties to the most recently seen. It is told through its inbox. Capable agents that refuse you are " +
    "listed in refused_by_policy and never get it. If none is live the task is queued and handed to the next capable " +
    "agent that accepts you and registers (listed in that registration's auto_assigned_tasks). You get an inbox notice " +
    `when it is accepted, completed or rejected, unless your own policy refuses the assignee. Renews your presence.\n${REACH_RULE}\n${RATE_RULE}`,
  schema: postOptionsSchema,
  writes:
    "the task, its assignment and the assignee's inbox notice (or only the queued task), your message and delivery counts, and your presence renewal.",
  output:
    '{"task":{"id":"task_…","title","body","required_caps","priority","state":"assigned|queued","poster","assignee",' +
    '"result","reason","version","created_at","updated_at"},"routed":"assigned|queued","refused_by_policy":[…],"note"}',
  errors: authenticatedErrorsWith("RATE_LIMITED"),
  env: [...AUTH_ENV, ...MESSAGE_RATE_ENV],
  examples: [
    "agent-task-cli post --agent-id lead --title 'Review PR 12' --body 'see thread pr-12' --require-cap review --priority high",
    "agent-task-cli post --agent-id lead --title 'Migrate db' --body 'run 004' --require-cap sql,ops --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runPost,
  render,
});
