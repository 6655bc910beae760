import type { StoreTx } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { routeTask } from "../tasks/route.ts";

// Enough for every job and trigger an agent can own: each page is cancelled, so a next page finds the rest.
const PAGE = 500;

/** Cancels the name's automation (jobs, their triggers and queued runs, lone triggers) and deletes its worker env. */
const endAutomation = async (tx: StoreTx, owner: string, now: number): Promise<void> => {
  for (;;) {
    const active = (await tx.automation.listJobs(owner, PAGE)).filter((j) => j.state === "active");
    for (const job of active) {
      await tx.automation.cancelJob(job.id, now);
      await tx.automation.cancelTriggers({ jobId: job.id }, now);
      await tx.automation.cancelQueuedRuns(job.id, now);
    }
    if (active.length === 0) break;
  }
  for (;;) {
    const triggers = await tx.automation.listTriggers(owner, false, PAGE);
    for (const trigger of triggers) await tx.automation.cancelTriggers({ id: trigger.id }, now);
    if (triggers.length === 0) break;
  }
  const env = await tx.automation.listEnv(owner);
  if (env.length > 0)
    await tx.automation.unsetEnv(
      owner,
      env.map((e) => e.key),
    );
};

/** Cancels the open tasks the name posted: their results and rejections would otherwise reach the next holder. */
const cancelPosted = async (deps: Deps, tx: StoreTx, poster: string): Promise<void> => {
  const reason = `cancelled: the name of its poster ${poster} was revoked`;
  for (;;) {
    const open = await tx.tasks.list({ party: poster, states: ["queued", "assigned", "accepted"], limit: PAGE });
    const posted = open.filter((t) => t.poster === poster);
    for (const t of posted) {
      await tx.tasks.change(t.id, t.version, { state: "cancelled", assignee: t.assignee, result: null, reason, now: deps.now() });
    }
    if (posted.length === 0) break;
  }
};

/**
 * Ends what the holder of a name released without recovery had, so that none of it reaches whoever registers the
 * name next: its mail, threads and sent view stop being the name's (holder_since), its webhooks, contact lists,
 * retry keys and channel memberships go, its automation is cancelled and its worker env deleted, the tasks
 * assigned to it go back to routing and the open tasks it posted are cancelled. `since` is the first moment that belongs to the next holder.
 */
export const endHolderHistory = async (deps: Deps, tx: StoreTx, agentId: string, since: number): Promise<void> => {
  for (const task of await tx.tasks.openAssignedTo(agentId)) await routeTask(deps, tx, task, new Set([agentId]));
  // Before holder_since moves: from then on the task list no longer shows the earlier holder's tasks.
  await cancelPosted(deps, tx, agentId);
  await endAutomation(tx, agentId, deps.now());
  await tx.identity.endHolderHistory(agentId, since, deps.now());
};
