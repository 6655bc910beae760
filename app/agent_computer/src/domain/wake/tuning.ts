// The timing and safety knobs of auto-wake, with the environment variables that override them. Every value is
// bounded so a typo cannot turn a safety rule off (e.g. an hourly cap of 0 or a coalescing window of an hour).

export interface WakeTuning {
  /** How often the watcher polls the store for new mail (PostgreSQL also gets a NOTIFY hint). */
  pollMs: number;
  /** With LISTEN working: how often an armed agent with no mail is looked at anyway (a lost NOTIFY's cost). */
  quietPollMs: number;
  /** A wake waits this long after new mail is first seen, so a burst becomes one prompt. */
  coalesceMs: number;
  /** An unused wake token expires after this; until then no other wake is sent to the agent. */
  tokenTtlMs: number;
  /** A `working` agent is prompted anyway once a due wake has waited this long for it to settle. */
  workingMaxMs: number;
  /** Hard cap of wakes per agent in any rolling hour (prompts that failed count too). */
  hourlyCap: number;
  /** A light watcher exits after this long with no armed agent left. */
  idleExitMs: number;
}

interface Knob {
  env: string;
  min: number;
  max: number;
  doc: string;
}

export const WAKE_KNOBS: Record<keyof WakeTuning, Knob> = {
  pollMs: { env: "AGENT_COMPUTER_WAKE_POLL_MS", min: 5, max: 10_000, doc: "store poll interval" },
  quietPollMs: { env: "AGENT_COMPUTER_WAKE_QUIET_POLL_MS", min: 100, max: 600_000, doc: "quiet agent's look with LISTEN" },
  coalesceMs: { env: "AGENT_COMPUTER_WAKE_COALESCE_MS", min: 0, max: 10_000, doc: "burst coalescing window" },
  tokenTtlMs: { env: "AGENT_COMPUTER_WAKE_TOKEN_TTL_MS", min: 1_000, max: 86_400_000, doc: "wake token lifetime" },
  workingMaxMs: { env: "AGENT_COMPUTER_WAKE_WORKING_MAX_MS", min: 100, max: 86_400_000, doc: "longest deferral while working" },
  hourlyCap: { env: "AGENT_COMPUTER_WAKE_HOURLY_CAP", min: 1, max: 120, doc: "wakes per agent per rolling hour" },
  idleExitMs: {
    env: "AGENT_COMPUTER_WAKE_IDLE_EXIT_MS",
    min: 100,
    max: 86_400_000,
    doc: "light watcher lifetime with nothing armed",
  },
};

export const defaultWakeTuning = (dialect: "sqlite" | "postgres"): WakeTuning => ({
  // SQLite has no change notification across processes, so it is polled often (an indexed range scan per armed
  // session); PostgreSQL announces every delivery with NOTIFY and is polled only as a fallback.
  pollMs: dialect === "sqlite" ? 20 : 250,
  quietPollMs: 30_000,
  coalesceMs: 30,
  tokenTtlMs: 10 * 60_000,
  workingMaxMs: 10 * 60_000,
  hourlyCap: 30,
  idleExitMs: 60_000,
});

/** The defaults with valid overrides from the environment; an invalid value is reported and ignored. */
export const wakeTuningFromEnv = (
  env: Readonly<Record<string, string | undefined>>,
  dialect: "sqlite" | "postgres",
  warn: (message: string) => void = () => undefined,
): WakeTuning => {
  const tuning = defaultWakeTuning(dialect);
  for (const [key, knob] of Object.entries(WAKE_KNOBS) as [keyof WakeTuning, Knob][]) {
    const raw = env[knob.env];
    if (raw === undefined || raw === "") continue;
    // Decimal digits only, as for integer flags: Number() would take 0x10, 1e3 and " 5 ".
    const value = /^(0|[1-9][0-9]*)$/.test(raw) ? Number(raw) : Number.NaN;
    if (Number.isInteger(value) && value >= knob.min && value <= knob.max) tuning[key] = value;
    else warn(`${knob.env}=${raw} ignored: must be a decimal integer ${knob.min}..${knob.max}`);
  }
  return tuning;
};
