import type { Deps } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { bounceUndelivered, endExpiredSessions } from "../mesh/expiry.ts";
import { routeTask } from "../tasks/route.ts";
import { type TaskSummary, taskSummary } from "../tasks/task-view.ts";

export interface UnregisterPreview {
  preview: true;
  name: string;
  removed: false;
  /** The open session that would end, and how many of its messages are unacknowledged (each bounces to its sender). */
  session_id: string | null;
  unacknowledged_messages: number;
  /** Tasks assigned to or accepted by the agent: each would go to another live capable agent or back to the queue. */
  open_tasks: (TaskSummary & { state: string })[];
  /** Its live file reservations, released with it. */
  reservations: number;
}

export interface UnregisterResult {
  success: true;
  name: string;
  removed: true;
  ended_session_id: string | null;
  rerouted_tasks: (TaskSummary & { state: string; assignee: string | null })[];
}

/**
 * Removes the agent: its session ends (senders of unread mail get a bounce), its inbox is deleted, and
 * tasks assigned to it go to another capable live agent or back to the queue, its file reservations are released. The
 * name becomes free.
 */
export const unregisterAgent = (deps: Deps, input: { agentId: string; token: string | undefined }): Promise<UnregisterResult> =>
  deps.store.write(async (tx) => {
    await endExpiredSessions(tx, deps.now(), deps.newId);
    await authenticate(tx, input.agentId, input.token, { lock: true });
    const open = await tx.mesh.openSession(input.agentId);
    if (open && (await tx.identity.endOpenSession(input.agentId, open.id, deps.now()))) {
      await bounceUndelivered(tx, { ...open, endedAt: deps.now() }, deps.now(), deps.newId);
    }
    const rerouted: UnregisterResult["rerouted_tasks"] = [];
    for (const task of await tx.tasks.openAssignedTo(input.agentId)) {
      const routed = await routeTask(deps, tx, task, new Set([input.agentId]));
      rerouted.push({ ...taskSummary(routed), state: routed.state, assignee: routed.assignee });
    }
    // Its file reservations end with it: a later agent of the same name does not inherit them.
    await tx.reservations.release(input.agentId, undefined, deps.now());
    await tx.identity.deleteAgent(input.agentId, deps.now());
    return {
      success: true as const,
      name: input.agentId,
      removed: true as const,
      ended_session_id: open?.id ?? null,
      rerouted_tasks: rerouted,
    };
  });

/** What unregisterAgent would do now, from one read; authenticated like it, and changes nothing. */
export const previewUnregister = (
  deps: Deps,
  input: { agentId: string; token: string | undefined },
): Promise<UnregisterPreview> =>
  deps.store.read(async (tx) => {
    const now = deps.now();
    await authenticate(tx, input.agentId, input.token);
    const glance = await tx.mesh.glanceInbox(input.agentId, now);
    const tasks = await tx.tasks.openAssignedTo(input.agentId);
    const reservations = await tx.reservations.live({ holder: input.agentId }, now, RESERVATIONS_COUNTED);
    return {
      preview: true as const,
      name: input.agentId,
      removed: false as const,
      session_id: glance?.sessionId ?? null,
      unacknowledged_messages: glance?.count ?? 0,
      open_tasks: tasks.map((task) => ({ ...taskSummary(task), state: task.state })),
      reservations: reservations.length,
    };
  });

// An agent holds far fewer; the count is only a preview's figure.
const RESERVATIONS_COUNTED = 1000;
