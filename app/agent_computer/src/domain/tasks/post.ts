import type { TaskPriority, TaskRecord } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { enterMesh } from "../mesh/live-session.ts";
import { routeTask } from "./route.ts";
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
    await enterMesh(deps, tx, input.agentId, input.token, false);
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
    const routed = await routeTask(deps, tx, task, new Set([input.agentId]));
    const assigned = routed.state === "assigned";
    return {
      task: taskView(routed),
      routed: assigned ? "assigned" : "queued",
      note: assigned
        ? `assigned to ${routed.assignee}, who was told through the mesh; you will get a notice when it accepts, completes or rejects it`
        : `no live agent has every capability of [${task.requiredCaps.join(", ")}]; it stays queued until a capable agent registers`,
    };
  });
