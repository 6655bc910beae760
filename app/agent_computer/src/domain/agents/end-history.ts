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

/**
 * Ends what the holder of a name released without recovery had, so that none of it reaches whoever registers the
 * name next: its mail, threads and sent view stop being the name's (holder_since), its webhooks, contact lists,
 * retry keys and channel memberships go, its automation is cancelled and its worker env deleted, and the tasks
 * assigned to it go back to routing. `since` is the first moment that belongs to the next holder.
 */
export const endHolderHistory = async (deps: Deps, tx: StoreTx, agentId: string, since: number): Promise<void> => {
  await tx.identity.endHolderHistory(agentId, since, deps.now());
  await endAutomation(tx, agentId, deps.now());
  for (const task of await tx.tasks.openAssignedTo(agentId)) await routeTask(deps, tx, task, new Set([agentId]));
};
