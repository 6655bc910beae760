import { AppError } from "../../errors.ts";
import type { RateKind, RateLimits, RateRule, RateScope } from "../deps.ts";

/** Where each limit is configured, and its default ("N/S": N successful calls per S seconds; "off" disables). */
export const RATE_SETTINGS = {
  register: {
    name: { env: "AGENT_COMPUTER_RATE_REGISTER_PER_NAME", default: "20/60" },
    host: { env: "AGENT_COMPUTER_RATE_REGISTER_PER_HOST", default: "120/60" },
  },
  /** Every new message an agent originates: a send, reply or broadcast, a channel post, a task post. */
  send: {
    name: { env: "AGENT_COMPUTER_RATE_SEND_PER_NAME", default: "120/60" },
    host: { env: "AGENT_COMPUTER_RATE_SEND_PER_HOST", default: "600/60" },
  },
  /** The inboxes those messages reach: a broadcast or channel post counts once per recipient it is delivered to. */
  deliver: {
    name: { env: "AGENT_COMPUTER_RATE_DELIVER_PER_NAME", default: "1200/60" },
    host: { env: "AGENT_COMPUTER_RATE_DELIVER_PER_HOST", default: "6000/60" },
  },
  /** A sender's broadcasts, on top of the message limit they also count against; a host's are bounded by deliver. */
  broadcast: {
    name: { env: "AGENT_COMPUTER_RATE_BROADCAST_PER_NAME", default: "10/60" },
  },
} as const;

interface RateSetting {
  env: string;
  default: string;
}

/** The setting of one limit; undefined where the kind has no limit of that scope. */
export const rateSetting = (kind: RateKind, scope: RateScope): RateSetting | undefined =>
  (RATE_SETTINGS[kind] as Partial<Record<RateScope, RateSetting>>)[scope];

/** Where the most agents one broadcast may select is configured, and its default. */
export const BROADCAST_MAX_SETTING = { env: "AGENT_COMPUTER_BROADCAST_MAX_RECIPIENTS", default: 1000 } as const;

const parseBroadcastMax = (text: string | undefined): number => {
  if (text === undefined) return BROADCAST_MAX_SETTING.default;
  const value = text.trim();
  if (!/^\d{1,7}$/.test(value) || Number(value) < 1) {
    throw new AppError(
      "INVALID_INPUT",
      `${BROADCAST_MAX_SETTING.env}: must be a whole number from 1 to 9999999 (got "${value}")`,
    );
  }
  return Number(value);
};

export const parseRateRule = (variable: string, text: string): RateRule | null => {
  const value = text.trim();
  if (value === "off") return null;
  const match = /^(\d{1,9})\/(\d{1,9})$/.exec(value);
  const max = Number(match?.[1]);
  const windowS = Number(match?.[2]);
  if (!match || max < 1 || windowS < 1) {
    throw new AppError("INVALID_INPUT", `${variable}: must be N/S (N calls per S seconds, both >= 1) or off (got "${value}")`);
  }
  return { max, windowS };
};

export const rateLimitsFromEnv = (env: Record<string, string | undefined>): RateLimits => ({
  rule: (kind, scope) => {
    const setting = rateSetting(kind, scope);
    return setting ? parseRateRule(setting.env, env[setting.env] ?? setting.default) : null;
  },
  broadcastMaxRecipients: () => parseBroadcastMax(env[BROADCAST_MAX_SETTING.env]),
});
