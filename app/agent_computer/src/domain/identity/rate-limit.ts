import { AppError } from "../../errors.ts";
import type { StoreTx } from "../../store/port.ts";
import type { RateKind, RateLimits, RateRule, RateScope } from "../deps.ts";
import { rateSetting } from "./rate-config.ts";

const NOUN: Record<RateKind, string> = {
  register: "registrations",
  send: "messages sent",
  deliver: "deliveries",
  broadcast: "broadcasts",
};

/** One count to take: `count` (default one) in `kind`'s counters of the given scopes (default name, then host). */
export interface RateTake {
  kind: RateKind;
  scopes?: readonly RateScope[];
  count?: number;
}

interface Taken {
  kind: RateKind;
  scope: RateScope;
  rule: RateRule;
  windowStart: number;
  hits: Promise<number>;
}

const settingOf = (kind: RateKind, scope: RateScope, rule: RateRule): string =>
  `${rateSetting(kind, scope)?.env}=${rule.max}/${rule.windowS}`;

const limited = ({ kind, scope, rule, windowStart }: Taken, now: number): AppError => {
  const retryAfterS = Math.max(1, Math.ceil((windowStart + rule.windowS * 1000 - now) / 1000));
  return new AppError("RATE_LIMITED", `more than ${rule.max} ${NOUN[kind]} per ${rule.windowS}s for this ${scope}`, {
    hint: `retry after ${retryAfterS}s (the limit is ${settingOf(kind, scope, rule)})`,
    details: { retry_after_s: retryAfterS, scope, limit: rule.max, window_s: rule.windowS },
  });
};

/**
 * Counts the call in the fixed-window counters of its name and its host, in the store, so every process on the
 * store shares them. It runs inside the caller's transaction: a call rejected for any reason (these limits
 * included) rolls back and is not counted. The counters' statements are sent together and their answers checked in
 * order (one round trip on PostgreSQL); `takes` come in the one order every caller uses (a name's counters before
 * the host's, which every call of the host writes and so are taken last).
 */
export const takeRates = async (
  tx: StoreTx,
  limits: RateLimits | undefined,
  keys: { name: string; host: string },
  now: number,
  takes: readonly RateTake[],
): Promise<void> => {
  if (!limits) return;
  const taken: Taken[] = [];
  const everyScope: readonly RateScope[] = ["name", "host"];
  for (const { kind, scopes = everyScope, count = 1 } of takes) {
    if (count < 1) continue;
    for (const scope of scopes) {
      const rule = limits.rule(kind, scope);
      if (!rule) continue;
      if (count > rule.max) {
        // Waiting would not help: say so rather than give a retry-after that is a lie.
        throw new AppError(
          "RATE_LIMITED",
          `this call makes ${count} ${NOUN[kind]}, more than this ${scope} may make in ${rule.windowS}s (${rule.max}); nothing was written`,
          {
            hint: `reach fewer agents per call, or raise the limit (${settingOf(kind, scope, rule)})`,
            details: { scope, limit: rule.max, window_s: rule.windowS, count },
          },
        );
      }
      const windowMs = rule.windowS * 1000;
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const hits = tx.identity.takeRateSlot(`${kind}:${scope}:${keys[scope]}`, windowStart, count);
      // Awaited below in order; handled here at once so an earlier failure leaves no rejection unhandled.
      hits.catch(() => undefined);
      taken.push({ kind, scope, rule, windowStart, hits });
    }
  }
  for (const take of taken) if ((await take.hits) > take.rule.max) throw limited(take, now);
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
): Promise<void> => takeRates(tx, limits, keys, now, [{ kind, scopes }]);

/**
 * The end of a new message's transaction: the inboxes it reached (the fan-out of a broadcast or channel post weighs
 * what it costs; a message that reached nobody counts nothing here) in the sender's and the host's delivery budgets,
 * then the message in the host's message limit.
 */
export const takeDeliveryAndHostSlots = (
  tx: StoreTx,
  limits: RateLimits | undefined,
  keys: { name: string; host: string },
  deliveries: number,
  now: number,
): Promise<void> =>
  takeRates(tx, limits, keys, now, [
    { kind: "deliver", count: deliveries },
    { kind: "send", scopes: ["host"] },
  ]);
