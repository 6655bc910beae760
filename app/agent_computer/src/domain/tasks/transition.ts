import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import type { StoreTx, TaskRecord, TaskState } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { type MetCaller, meetCaller, presenceRows, writePresence } from "../mesh/live-session.ts";
import { lockAgentsInOrder } from "../mesh/lock-order.ts";
import { deliverSystemMessage } from "../mesh/notify.ts";
import { mayReach } from "../mesh/reach.ts";
import { type TaskView, taskView } from "./task-view.ts";

export type TaskAction = "accept" | "complete" | "reject" | "cancel";

interface Rule {
  from: readonly TaskState[];
  to: TaskState;
  /** Who may take this step; the other party is told about it through the mesh. */
  by: "assignee" | "poster";
}

export const TASK_RULES: Record<TaskAction, Rule> = {
  accept: { from: ["assigned"], to: "accepted", by: "assignee" },
  complete: { from: ["accepted"], to: "completed", by: "assignee" },
  reject: { from: ["assigned", "accepted"], to: "rejected", by: "assignee" },
  cancel: { from: ["queued", "assigned", "accepted"], to: "cancelled", by: "poster" },
};

export interface TransitionInput {
  action: TaskAction;
  agentId: string;
  token: string | undefined;
  taskId: string;
  /** complete: the outcome; reject and cancel: why. */
  text?: string | undefined;
}

/**
 * sent: the other party got an inbox notice of the step. refused_by_policy: its contact policy refuses the actor
 * (reach.ts), so it got nothing; the step and its text are recorded on the task, where agent-task-cli list shows
 * them. none: there is no other party to tell.
 */
export type StepNotice = "sent" | "refused_by_policy" | "none";

export type TransitionResult = TaskView & { notice: StepNotice };

/** Tells the other party through the mesh if it accepts the actor; its inbox row and the actor's presence are locked in the one order. */
const notifyAndRenew = async (deps: Deps, tx: StoreTx, task: TaskRecord, actor: MetCaller): Promise<StepNotice> => {
  const other = actor.agentId === task.poster ? task.assignee : task.poster;
  const registered = other && other !== actor.agentId && (await tx.mesh.getAgent(other)) ? other : undefined;
  const refused = registered !== undefined && !(await mayReach(tx, actor.agentId, registered));
  const recipient = refused ? undefined : registered;
  await lockAgentsInOrder(tx, [...presenceRows(actor), ...(recipient ? [recipient] : [])]);
  await writePresence(deps, tx, actor);
  if (!recipient) return refused ? "refused_by_policy" : "none";
  const detail = task.result ?? task.reason;
  await deliverSystemMessage(tx, {
    recipient,
    kind: "event",
    threadId: task.id,
    body: `Task ${task.id} (${task.title}) is now ${task.state} by ${actor.agentId}${detail ? `: ${detail}` : ""}`,
    now: deps.now(),
    newId: deps.newId,
  });
  return "sent";
};

/**
 * One step of a task's life, as a compare-and-swap: it lands only if the task is still in a state the
 * step allows and nobody changed it since it was read, so of two racing steps exactly one wins.
 */
export const transitionTask = (deps: Deps, input: TransitionInput): Promise<TransitionResult> =>
  deps.store.write(async (tx) => {
    const actor = await meetCaller(deps, tx, input.agentId, input.token);
    const task = await tx.tasks.get(input.taskId);
    if (!task)
      throw new AppError("NOT_FOUND", `no task ${input.taskId}`, {
        hint: `${commandLine("agent-task-cli", "list", "--agent-id", input.agentId)} shows your tasks`,
      });
    const rule = TASK_RULES[input.action];
    const party = rule.by === "assignee" ? task.assignee : task.poster;
    if (party !== input.agentId) {
      throw new AppError("CONFLICT", `only the ${rule.by} of ${task.id} (${party ?? "nobody yet"}) can ${input.action} it`, {
        details: { state: task.state, [rule.by]: party },
      });
    }
    if (!rule.from.includes(task.state)) {
      throw new AppError("CONFLICT", `${task.id} is ${task.state}; ${input.action} needs it ${rule.from.join(" or ")}`, {
        details: { state: task.state },
      });
    }
    const changed = await tx.tasks.change(task.id, task.version, {
      state: rule.to,
      assignee: task.assignee,
      result: input.action === "complete" ? (input.text ?? null) : task.result,
      reason: input.action === "reject" || input.action === "cancel" ? (input.text ?? null) : task.reason,
      now: deps.now(),
    });
    if (!changed) {
      throw new AppError("CONFLICT", `${task.id} changed while you acted on it; nothing was written`, {
        hint: `re-read it with ${commandLine("agent-task-cli", "list", "--agent-id", input.agentId, "--scope", "all")} and decide again`,
      });
    }
    const notice = await notifyAndRenew(deps, tx, changed, actor);
    return { ...taskView(changed), notice };
  });
