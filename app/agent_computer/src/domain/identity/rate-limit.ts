import { AppError } from "../../errors.ts";
import type { StoreTx } from "../../store/port.ts";
import type { RateKind, RateLimits, RateScope } from "../deps.ts";
import { RATE_SETTINGS } from "./rate-config.ts";

const NOUN: Record<RateKind, string> = { register: "registrations", send: "sends" };

/**
 * Counts this call in the fixed-window counters of its name and its host, in the store, so every process
 * on the store shares them. It runs inside the caller's transaction: a call rejected for any reason
 * (this limit included) rolls back and is not counted. `scopes` lets a caller take the per-host counter, the row
 * every call of the host writes, at the very end of its transaction.
 */
export const takeRateSlots = async (
  tx: StoreTx,
  limits: RateLimits | undefined,
  kind: RateKind,
  keys: { name: string; host: string },
  now: number,
  scopes: readonly RateScope[] = ["name", "host"],
): Promise<void> => {
  if (!limits) return;
  for (const scope of scopes) {
    const rule = limits.rule(kind, scope);
    if (!rule) continue;
    const windowMs = rule.windowS * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const hits = await tx.identity.takeRateSlot(`${kind}:${scope}:${keys[scope]}`, windowStart);
    if (hits > rule.max) {
      const retryAfterS = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw new AppError("RATE_LIMITED", `more than ${rule.max} ${NOUN[kind]} per ${rule.windowS}s for this ${scope}`, {
        hint: `retry after ${retryAfterS}s (the limit is ${RATE_SETTINGS[kind][scope].env}=${rule.max}/${rule.windowS})`,
        details: { retry_after_s: retryAfterS, scope, limit: rule.max, window_s: rule.windowS },
      });
    }
  }
};
