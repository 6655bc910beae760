import { AppError } from "../../errors.ts";
import type { StoreTx } from "../../store/port.ts";
import type { RateKind, RateLimits, RateScope } from "../deps.ts";
import { RATE_SETTINGS } from "./rate-config.ts";

const NOUN: Record<RateKind, string> = { register: "registrations", send: "messages sent", deliver: "deliveries" };

/**
 * Counts `count` in the fixed-window counters of the call's name and host, in the store, so every process on the
 * store shares them. It runs inside the caller's transaction: a call rejected for any reason (this limit included)
 * rolls back and is not counted.
 */
const take = async (
  tx: StoreTx,
  limits: RateLimits | undefined,
  kind: RateKind,
  keys: { name: string; host: string },
  now: number,
  scopes: readonly RateScope[],
  count: number,
): Promise<void> => {
  if (!limits || count < 1) return;
  for (const scope of scopes) {
    const rule = limits.rule(kind, scope);
    if (!rule) continue;
    const setting = `${RATE_SETTINGS[kind][scope].env}=${rule.max}/${rule.windowS}`;
    if (count > rule.max) {
      // Waiting would not help: say so rather than give a retry-after that is a lie.
      throw new AppError(
        "RATE_LIMITED",
        `this call makes ${count} ${NOUN[kind]}, more than this ${scope} may make in ${rule.windowS}s (${rule.max}); nothing was written`,
        {
          hint: `reach fewer agents per call, or raise the limit (${setting})`,
          details: { scope, limit: rule.max, window_s: rule.windowS, count },
        },
      );
    }
    const windowMs = rule.windowS * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const hits = await tx.identity.takeRateSlot(`${kind}:${scope}:${keys[scope]}`, windowStart, count);
    if (hits > rule.max) {
      const retryAfterS = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw new AppError("RATE_LIMITED", `more than ${rule.max} ${NOUN[kind]} per ${rule.windowS}s for this ${scope}`, {
        hint: `retry after ${retryAfterS}s (the limit is ${setting})`,
        details: { retry_after_s: retryAfterS, scope, limit: rule.max, window_s: rule.windowS },
      });
    }
  }
};

/**
 * Counts this call once in its kind's counters of its name and its host. `scopes` lets a caller take the per-host
 * counter, the row every call of the host writes, at the very end of its transaction.
 */
export const takeRateSlots = (
  tx: StoreTx,
  limits: RateLimits | undefined,
  kind: RateKind,
  keys: { name: string; host: string },
  now: number,
  scopes: readonly RateScope[] = ["name", "host"],
): Promise<void> => take(tx, limits, kind, keys, now, scopes, 1);

/**
 * Counts the inboxes one message reached (the fan-out of a broadcast or channel post weighs what it costs), in
 * the sender's and the host's delivery budgets; a message that reached nobody counts nothing here.
 */
export const takeDeliverySlots = (
  tx: StoreTx,
  limits: RateLimits | undefined,
  keys: { name: string; host: string },
  deliveries: number,
  now: number,
): Promise<void> => take(tx, limits, "deliver", keys, now, ["name", "host"], deliveries);
