import * as z from "zod/mini";
import { agentId } from "../../domain/identity/names.ts";
import { TASK_RULES, type TaskAction, type TransitionResult, transitionTask } from "../../domain/tasks/transition.ts";
import { type CommandDef, type DepsOf, defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { AUTH_ENV } from "./options.ts";

// accept, complete, reject and cancel are one compare-and-swap with different rules, so one factory builds them;
// each subcommand's own file (task-accept.ts, …) is that factory's call.

/** The free text an action records, and the key (so the flag) it is given with: --result or --reason. */
const TEXT: Record<TaskAction, { key: "result" | "reason"; describe: string; summary: string } | undefined> = {
  accept: undefined,
  complete: { key: "result", describe: "the outcome, told to the poster", summary: "report an accepted task done" },
  reject: { key: "reason", describe: "why, told to the poster", summary: "refuse an assigned or accepted task" },
  cancel: { key: "reason", describe: "why, told to the assignee", summary: "withdraw a task you posted" },
};

const transitionSchema = (action: TaskAction) => {
  const text = TEXT[action];
  return z.object({
    agentId: agentId(`the acting agent, the task's ${TASK_RULES[action].by} (authenticated by its token)`),
    taskId: z.string().check(z.regex(/^task_[0-9a-f]{32}$/, "must be a task id (task_…)"), z.describe("the task")),
    ...(text
      ? { [text.key]: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))).check(z.describe(text.describe)) }
      : {}),
    tokenFile: tokenFileSchema,
  });
};

/** The agent-task-cli subcommand that takes a task one step (`action`) under its rule. */
export const transitionCommand = (action: TaskAction): CommandDef => {
  const rule = TASK_RULES[action];
  const text = TEXT[action];
  const schema = transitionSchema(action);
  const run = async (options: z.output<typeof schema>, deps: DepsOf<"store">): Promise<TransitionResult> =>
    transitionTask(deps, {
      action,
      agentId: options.agentId,
      token: deps.credential?.token,
      taskId: options.taskId,
      text: text ? (options as Record<string, string | undefined>)[text.key] : undefined,
    });
  return defineCommand({
    name: `agent-task-cli ${action}`,
    summary: text?.summary ?? "take an assigned task on",
    description:
      `Moves a task from ${rule.from.join(" or ")} to ${rule.to}; only its ${rule.by} may. A compare-and-swap on the task's ` +
      "state and version: if it is in another state, or changed since it was read, the call fails CONFLICT and nothing is " +
      `written. The ${rule.by === "poster" ? "assignee" : "poster"} (if any) gets an inbox notice (notice: sent), unless its contact policy refuses you ` +
      `(notice: refused_by_policy: nothing reaches its inbox or webhooks${text ? `, and your --${text.key} stays on the task for agent-task-cli list` : ""}; ` +
      "agent-contacts-cli --help). Renews your presence.",
    schema,
    writes: `the task's state (${rule.to}), version and ${text ? "text, " : ""}and one inbox notice to the other party if it accepts you.`,
    output:
      '{"id","title","body","required_caps","priority","state","poster","assignee","result","reason","version",' +
      '"created_at","updated_at","notice":"sent|refused_by_policy|none"}',
    errors: authenticatedErrorsWith("NOT_FOUND", "CONFLICT"),
    env: AUTH_ENV,
    examples: [
      `agent-task-cli ${action} --agent-id builder-1 --task-id task_0193a1b2c3d4e5f60718293a4b5c6d7e${text ? ` --${text.key} 'see PR 12'` : ""}`,
    ],
    needs: { deps: "store", credential: ownCredential },
    run,
    render: (t: TransitionResult) =>
      `${t.id} [${t.priority}] ${neutralizeLine(t.title)}: ${t.state} (version ${t.version})` +
      (t.notice === "refused_by_policy"
        ? `\n  NOT TOLD: ${rule.by === "poster" ? t.assignee : t.poster} refuses you by contact policy; the step is recorded on the task`
        : ""),
  });
};
