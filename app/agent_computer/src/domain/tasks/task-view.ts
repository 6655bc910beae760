import type { TaskRecord } from "../../store/port.ts";
import { iso } from "../deps.ts";

export interface TaskView {
  id: string;
  title: string;
  body: string;
  required_caps: string[];
  priority: string;
  state: string;
  poster: string;
  assignee: string | null;
  result: string | null;
  reason: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** The short form registration results list in auto_assigned_tasks. */
export interface TaskSummary {
  task_id: string;
  title: string;
  priority: string;
}

export const taskView = (t: TaskRecord): TaskView => ({
  id: t.id,
  title: t.title,
  body: t.body,
  required_caps: t.requiredCaps,
  priority: t.priority,
  state: t.state,
  poster: t.poster,
  assignee: t.assignee,
  result: t.result,
  reason: t.reason,
  version: t.version,
  created_at: iso(t.createdAt),
  updated_at: iso(t.updatedAt),
});

export const taskSummary = (t: TaskRecord): TaskSummary => ({ task_id: t.id, title: t.title, priority: t.priority });
