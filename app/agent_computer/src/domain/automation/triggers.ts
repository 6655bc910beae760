import { randomBytes } from "node:crypto";
import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import type { StoreTx, TriggerRecord, WebhookProvider } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { cronProblem, nextTick } from "./cron.ts";
import { type OwnerCall, ownedJob } from "./jobs.ts";
import { type TriggerView, triggerView } from "./views.ts";

/** Standard Webhooks secret: whsec_ + base64 of 32 random bytes; shown once, stored because HMAC needs it. */
export const mintWebhookSecret = (): string => `whsec_${randomBytes(32).toString("base64")}`;

const blankTrigger = (deps: Deps, owner: string, kind: TriggerRecord["kind"], prefix: string): TriggerRecord => ({
  id: deps.newId(prefix),
  kind,
  owner,
  jobId: null,
  label: null,
  state: "active",
  dueAt: null,
  cronExpr: null,
  tz: null,
  misfireWindowSeconds: null,
  provider: null,
  secret: null,
  maxBodyBytes: null,
  fireCount: 0,
  skippedCount: 0,
  lastFiredAt: null,
  createdAt: deps.now(),
  endedAt: null,
});

/** Authenticates the owner, checks the named job is theirs and active, and inserts the trigger. */
const insertOwned = (deps: Deps, call: OwnerCall, jobId: string | undefined, trigger: TriggerRecord) =>
  deps.store.write(async (tx: StoreTx) => {
    await authenticate(tx, call.agentId, call.token);
    if (jobId !== undefined) {
      const job = await ownedJob(tx, call.agentId, jobId);
      if (job.state !== "active")
        throw new AppError("CONFLICT", `automation job ${jobId} is cancelled; its triggers cannot fire`);
    }
    await tx.automation.insertTrigger({ ...trigger, jobId: jobId ?? null });
    if (trigger.dueAt !== null) await tx.automation.hintWorkers();
  });

export const createCheckback = async (
  deps: Deps,
  input: OwnerCall & { dueAt: number; jobId?: string | undefined; note?: string | undefined; baseUrl: string },
): Promise<TriggerView> => {
  const trigger = { ...blankTrigger(deps, input.agentId, "checkback", "chk"), dueAt: input.dueAt, label: input.note ?? null };
  await insertOwned(deps, input, input.jobId, trigger);
  return triggerView({ ...trigger, jobId: input.jobId ?? null }, input.baseUrl);
};

export const createCronSchedule = async (
  deps: Deps,
  input: OwnerCall & {
    cron: string;
    tz: string;
    misfireWindowSeconds: number;
    jobId?: string | undefined;
    label?: string | undefined;
    baseUrl: string;
  },
): Promise<TriggerView & { upcoming: string[] }> => {
  const problem = cronProblem(input.cron, input.tz);
  if (problem) throw new AppError("INVALID_INPUT", `${problem.flag}: ${problem.problem}`);
  const first = nextTick(input.cron, input.tz, deps.now());
  if (first === null) throw new AppError("INVALID_INPUT", "--cron: the expression never fires");
  const trigger = {
    ...blankTrigger(deps, input.agentId, "cron", "cron"),
    cronExpr: input.cron.trim().split(/\s+/).join(" "),
    tz: input.tz,
    misfireWindowSeconds: input.misfireWindowSeconds,
    dueAt: first,
    label: input.label ?? null,
  };
  await insertOwned(deps, input, input.jobId, trigger);
  const upcoming = [first];
  for (let i = 0; i < 2; i++) {
    const next = nextTick(trigger.cronExpr, input.tz, upcoming.at(-1) as number);
    if (next !== null) upcoming.push(next);
  }
  return {
    ...triggerView({ ...trigger, jobId: input.jobId ?? null }, input.baseUrl),
    upcoming: upcoming.map((t) => new Date(t).toISOString()),
  };
};

export const createWebhook = async (
  deps: Deps,
  input: OwnerCall & {
    label: string;
    provider: WebhookProvider;
    maxBodyBytes: number;
    jobId?: string | undefined;
    baseUrl: string;
  },
): Promise<TriggerView & { secret: string }> => {
  const secret = mintWebhookSecret();
  const trigger = {
    ...blankTrigger(deps, input.agentId, "webhook", "hook"),
    label: input.label,
    provider: input.provider,
    secret,
    maxBodyBytes: input.maxBodyBytes,
  };
  await insertOwned(deps, input, input.jobId, trigger);
  return { ...triggerView({ ...trigger, jobId: input.jobId ?? null }, input.baseUrl), secret };
};

export const listTriggers = (
  deps: Deps,
  input: OwnerCall & { includeEnded: boolean; limit: number; baseUrl: string; before?: { createdAt: number; id: string } },
): Promise<{ triggers: TriggerView[]; older_triggers: number }> =>
  deps.store.read(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const found = await tx.automation.listTriggers(input.agentId, input.includeEnded, input.limit + 1, input.before);
    const page = found.slice(0, input.limit);
    const last = page.at(-1);
    const older =
      found.length > input.limit && last ? await tx.automation.countTriggers(input.agentId, input.includeEnded, last) : 0;
    return { triggers: page.map((t) => triggerView(t, input.baseUrl)), older_triggers: older };
  });

export const cancelTrigger = (deps: Deps, input: OwnerCall & { id: string; baseUrl: string }): Promise<TriggerView> =>
  deps.store.write(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const trigger = await tx.automation.getTrigger(input.id, true);
    if (!trigger || trigger.owner !== input.agentId) {
      throw new AppError("NOT_FOUND", `no trigger ${input.id} owned by ${input.agentId}`, {
        hint: `${commandLine("list-triggers-cli", "--agent-id", input.agentId)} lists yours`,
      });
    }
    if ((await tx.automation.cancelTriggers({ id: trigger.id }, deps.now())).length === 0) {
      throw new AppError("CONFLICT", `trigger ${trigger.id} is already ${trigger.state}`);
    }
    return triggerView({ ...trigger, state: "cancelled", dueAt: null, endedAt: deps.now() }, input.baseUrl);
  });
