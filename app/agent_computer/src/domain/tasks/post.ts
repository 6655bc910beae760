import type { TaskPriority, TaskRecord } from "../../store/port.ts";
import { type Deps, hostIdOf } from "../deps.ts";
import { takeDeliveryAndHostSlots, takeRateSlots } from "../identity/rate-limit.ts";
import { meetCaller, presenceRows, writePresence } from "../mesh/live-session.ts";
import { lockAgentsInOrder } from "../mesh/lock-order.ts";
import { assignTask, pickAssignee } from "./route.ts";
import { type TaskView, taskView } from "./task-view.ts";

export interface PostInput {
  agentId: string;
  token: string | undefined;
  title: string;
  body: string;
  requireCaps: string[];
  priority: TaskPriority;
}

export interface PostResult {
  task: TaskView;
  routed: "assigned" | "queued";
  /** Live capable agents whose contact policy refuses the poster: the task is never routed to them. */
  refused_by_policy: string[];
  note: string;
}

const queuedNote = (caps: readonly string[], refused: readonly string[]): string =>
  refused.length === 0
    ? `no live agent has every capability of [${caps.join(", ")}]; it stays queued until a capable agent registers`
    : `no live agent with every capability of [${caps.join(", ")}] accepts tasks from you (${refused.join(", ")} ` +
      "refuse you by contact policy); it stays queued until a capable agent that accepts you is live";

/**
 * Stores a task and routes it at once to the least-loaded live capable agent that accepts the poster, or queues
 * it. A post is a message the poster sends: it counts against the message limits as a send does, and its
 * assignment notice against the delivery budget.
 */
export const postTask = (deps: Deps, input: PostInput): Promise<PostResult> =>
  deps.store.write(async (tx) => {
    const caller = await meetCaller(deps, tx, input.agentId, input.token);
    const rateKeys = { name: input.agentId, host: hostIdOf(deps) };
    await takeRateSlots(tx, deps.limits, "send", rateKeys, deps.now(), ["name"]);
    const task: TaskRecord = {
      id: deps.newId("task"),
      title: input.title,
      body: input.body,
      requiredCaps: [...new Set(input.requireCaps)],
      priority: input.priority,
      state: "queued",
      poster: input.agentId,
      assignee: null,
      result: null,
      reason: null,
      createdAt: deps.now(),
      updatedAt: deps.now(),
      version: 1,
    };
    await tx.tasks.insert(task);
    const { assignee, refused } = await pickAssignee(deps, tx, task, new Set([input.agentId]));
    // The poster's presence and the assignee's inbox: two agents' rows, locked in the one order.
    await lockAgentsInOrder(tx, [...presenceRows(caller), ...(assignee ? [assignee] : [])]);
    await writePresence(deps, tx, caller);
    const routed = (assignee ? await assignTask(deps, tx, task, assignee) : undefined) ?? task;
    const assigned = routed.state === "assigned";
    await takeDeliveryAndHostSlots(tx, deps.limits, rateKeys, assigned ? 1 : 0, deps.now());
    return {
      task: taskView(routed),
      routed: assigned ? "assigned" : "queued",
      refused_by_policy: refused,
      note: assigned
        ? `assigned to ${routed.assignee}, who was told through the mesh; you will get a notice when it accepts, completes or rejects it`
        : queuedNote(task.requiredCaps, refused),
    };
  });
