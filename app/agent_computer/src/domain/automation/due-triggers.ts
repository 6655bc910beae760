// The scheduler's one transaction: lock the due checkbacks and schedules, settle or advance each with a
// compare-and-set, and fire it (run or wake) before commit. Several workers may call this at once.
import type { StoreTx, TriggerRecord } from "../../store/port.ts";
import { atOneInstant, type Deps, iso, isoOrNull } from "../deps.ts";
import { lockAgentsInOrder } from "../mesh/lock-order.ts";
import { EVENT_TYPES, jsonEvent, triggerSource } from "./cloudevent.ts";
import { MISFIRE_WINDOW_DEFAULT_SECONDS, planCatchUp } from "./cron.ts";
import { type FireResult, fire } from "./fire.ts";

export interface DueScan {
  fired: { triggerId: string; result: FireResult }[];
  /** true when the batch was full, so more may already be due. */
  more: boolean;
}

const fireCheckback = async (tx: StoreTx, deps: Deps, t: TriggerRecord): Promise<FireResult | undefined> => {
  if (!(await tx.automation.settleCheckback(t.id, deps.now()))) return undefined;
  const event = jsonEvent({
    id: t.id,
    source: triggerSource(t.id),
    type: EVENT_TYPES.checkback,
    time: deps.now(),
    data: { checkback_id: t.id, note: t.label, due_at: isoOrNull(t.dueAt) },
  });
  return fire(tx, deps, { trigger: t, fireKey: "", scheduledFor: t.dueAt, skippedTicks: 0, event });
};

const fireCron = async (tx: StoreTx, deps: Deps, t: TriggerRecord): Promise<FireResult | undefined> => {
  const dueAt = t.dueAt as number;
  const plan = planCatchUp({
    expr: t.cronExpr ?? "",
    tz: t.tz ?? "UTC",
    dueAt,
    now: deps.now(),
    windowSeconds: t.misfireWindowSeconds ?? MISFIRE_WINDOW_DEFAULT_SECONDS,
  });
  const advanced = await tx.automation.advanceCron(t.id, {
    expectedDueAt: dueAt,
    nextDueAt: plan.nextDueAt ?? Number.MAX_SAFE_INTEGER,
    fired: plan.fireTick !== null,
    skipped: plan.skipped,
    now: deps.now(),
  });
  if (!advanced) return undefined;
  if (plan.fireTick === null) {
    await tx.automation.recordFiring({
      triggerId: t.id,
      fireKey: String(plan.latestTick),
      outcome: "missed",
      scheduledFor: plan.latestTick,
      skippedTicks: plan.skipped,
      runId: null,
      messageId: null,
      firedAt: deps.now(),
    });
    return undefined;
  }
  const event = jsonEvent({
    id: `${t.id}:${plan.fireTick}`,
    source: triggerSource(t.id),
    type: EVENT_TYPES.cron,
    time: deps.now(),
    data: {
      schedule_id: t.id,
      label: t.label,
      cron: t.cronExpr,
      tz: t.tz,
      scheduled_for: iso(plan.fireTick),
      skipped_ticks: plan.skipped,
    },
  });
  return fire(tx, deps, {
    trigger: t,
    fireKey: String(plan.fireTick),
    scheduledFor: plan.fireTick,
    skippedTicks: plan.skipped,
    event,
  });
};

/** Consumes up to `limit` due triggers in one transaction; each is consumed by exactly one caller. */
export const consumeDueTriggers = (live: Deps, limit: number): Promise<DueScan> => {
  const deps = atOneInstant(live);
  return deps.store.write(async (tx) => {
    const due = await tx.automation.claimDueTriggers(deps.now(), limit);
    // A wake goes to each trigger's owner: several agents' inboxes, locked in the one order.
    await lockAgentsInOrder(
      tx,
      due.map((t) => t.owner),
    );
    const fired: DueScan["fired"] = [];
    for (const trigger of due) {
      const result = trigger.kind === "checkback" ? await fireCheckback(tx, deps, trigger) : await fireCron(tx, deps, trigger);
      if (result) fired.push({ triggerId: trigger.id, result });
    }
    if (fired.some((f) => f.result.outcome === "run")) await tx.automation.hintWorkers();
    return { fired, more: due.length === limit };
  });
};

export const nextDueAt = (deps: Deps): Promise<number | null> => deps.store.read((tx) => tx.automation.nextDueAt());
