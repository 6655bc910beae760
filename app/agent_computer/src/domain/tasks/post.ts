import type { TaskPriority, TaskRecord } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { meetCaller, presenceRows, writePresence } from "../mesh/live-session.ts";
import { lockAgentsInOrder } from "../mesh/lock-order.ts";
import { assignTask, pickAssignee } from "./route.ts";
import { type TaskView, taskView } from "./view.ts";

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
  note: string;
}

/** Stores a task and routes it at once to the least-loaded live capable agent, or queues it. */
export const postTask = (deps: Deps, input: PostInput): Promise<PostResult> =>
  deps.store.write(async (tx) => {
    const caller = await meetCaller(deps, tx, input.agentId, input.token);
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
    const assignee = await pickAssignee(deps, tx, task.requiredCaps, new Set([input.agentId]));
    // The poster's presence and the assignee's inbox: two agents' rows, locked in the one order.
    await lockAgentsInOrder(tx, [...presenceRows(caller), ...(assignee ? [assignee] : [])]);
    await writePresence(deps, tx, caller);
    const routed = (assignee ? await assignTask(deps, tx, task, assignee) : undefined) ?? task;
    const assigned = routed.state === "assigned";
    return {
      task: taskView(routed),
      routed: assigned ? "assigned" : "queued",
      note: assigned
        ? `assigned to ${routed.assignee}, who was told through the mesh; you will get a notice when it accepts, completes or rejects it`
        : `no live agent has every capability of [${task.requiredCaps.join(", ")}]; it stays queued until a capable agent registers`,
    };
  });
