import { commandLine } from "../../command-line.ts";
import type { IdentityRecord, StoreTx, TaskRecord } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";
import { livenessOf } from "../identity/liveness.ts";
import { deliverSystemMessage } from "../mesh/notify.ts";
import { mayReach, refusingRecipients } from "../mesh/reach.ts";
import { enqueueWebhookEvent } from "../mesh/webhook-events.ts";
import { type TaskSummary, taskSummary } from "./task-view.ts";

/** How many queued tasks one registration looks at; the queue is served most urgent first. */
const QUEUE_SCAN_LIMIT = 500;

export const covers = (capabilities: readonly string[], required: readonly string[]): boolean =>
  required.every((cap) => capabilities.includes(cap));

export interface AssigneeChoice {
  assignee: string | undefined;
  /** Live capable agents whose contact policy refuses the poster (reach.ts): never given its task. */
  refused: string[];
}

/**
 * The live agent that should get a task: its registered capabilities cover the requirement, it holds a live
 * session (by pid evidence where there is some), it accepts the poster, and among those it has the fewest assigned
 * or accepted tasks; ties go to the most recently seen, then to the name.
 */
export const pickAssignee = async (
  deps: Deps,
  tx: StoreTx,
  task: Pick<TaskRecord, "requiredCaps" | "poster">,
  exclude: ReadonlySet<string>,
): Promise<AssigneeChoice> => {
  const load = await tx.tasks.openLoad();
  const candidates: { name: string; load: number; seen: number }[] = [];
  for (const session of await tx.mesh.liveSessions(deps.now())) {
    if (exclude.has(session.agentId)) continue;
    const agent = await tx.identity.getAgent(session.agentId);
    if (agent?.authState !== "active" || !covers(agent.capabilities, task.requiredCaps)) continue;
    if (!livenessOf(agent, session, deps.now(), deps.local).alive) continue;
    candidates.push({ name: agent.agentId, load: load.get(agent.agentId) ?? 0, seen: agent.lastSeenAt });
  }
  const names = candidates.map((c) => c.name);
  const refused = new Set(await refusingRecipients(tx, task.poster, names));
  const accepting = candidates.filter((c) => !refused.has(c.name));
  accepting.sort((a, b) => a.load - b.load || b.seen - a.seen || a.name.localeCompare(b.name));
  return { assignee: accepting[0]?.name, refused: [...refused].sort() };
};

/**
 * Assigns a task (compare-and-swap on the version read) and tells the assignee through the mesh, so an
 * armed auto-wake can wake it. Returns undefined when another transaction changed the task first.
 */
export const assignTask = async (
  deps: Deps,
  tx: StoreTx,
  task: TaskRecord,
  assignee: string,
): Promise<TaskRecord | undefined> => {
  const assigned = await tx.tasks.change(task.id, task.version, {
    state: "assigned",
    assignee,
    result: null,
    reason: null,
    now: deps.now(),
  });
  if (!assigned) return undefined;
  // Ids and names only: the title and body are the poster's text, read with agent-task-cli.
  await enqueueWebhookEvent(
    tx,
    assignee,
    "task",
    {
      task_id: task.id,
      poster: task.poster,
      priority: task.priority,
      required_caps: task.requiredCaps,
      assigned_at: iso(deps.now()),
      read_with: commandLine("agent-task-cli", "list", "--agent-id", assignee),
    },
    deps.now(),
  );
  await deliverSystemMessage(tx, {
    recipient: assignee,
    kind: "event",
    threadId: task.id,
    body:
      `Task ${task.id} (${task.priority}) from ${task.poster} is assigned to you: ${task.title}\n` +
      `Read it with ${commandLine("agent-task-cli", "list", "--agent-id", assignee)}; accept it with ` +
      `${commandLine("agent-task-cli", "accept", "--agent-id", assignee, "--task-id", task.id)}, or refuse it with ` +
      `${commandLine("agent-task-cli", "reject", "--agent-id", assignee, "--task-id", task.id, "--reason", "why")}.`,
    now: deps.now(),
    newId: deps.newId,
  });
  return assigned;
};

/** Routes a task to the best live agent, or (back) to the queue; returns the task as stored afterwards. */
export const routeTask = async (deps: Deps, tx: StoreTx, task: TaskRecord, exclude: ReadonlySet<string>): Promise<TaskRecord> => {
  const { assignee } = await pickAssignee(deps, tx, task, exclude);
  const assigned = assignee ? await assignTask(deps, tx, task, assignee) : undefined;
  if (assigned || task.state === "queued") return assigned ?? task;
  const change = { state: "queued" as const, assignee: null, result: null, reason: task.reason, now: deps.now() };
  return (await tx.tasks.change(task.id, task.version, change)) ?? task;
};

/**
 * Hands every queued task this agent is capable of to it, most urgent first: not tasks it posted itself, nor tasks
 * of a poster its contact policy refuses (reach.ts).
 */
export const assignQueued = async (deps: Deps, tx: StoreTx, agent: IdentityRecord): Promise<TaskSummary[]> => {
  const assigned: TaskSummary[] = [];
  const accepts = new Map<string, boolean>();
  const acceptsPoster = async (poster: string): Promise<boolean> => {
    const known = accepts.get(poster);
    if (known !== undefined) return known;
    const answer = await mayReach(tx, poster, agent.agentId);
    accepts.set(poster, answer);
    return answer;
  };
  for (const task of await tx.tasks.queued(QUEUE_SCAN_LIMIT)) {
    if (task.poster === agent.agentId || !covers(agent.capabilities, task.requiredCaps)) continue;
    if (!(await acceptsPoster(task.poster))) continue;
    const done = await assignTask(deps, tx, task, agent.agentId);
    if (done) assigned.push(taskSummary(done));
  }
  return assigned;
};
