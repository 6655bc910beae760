// Doctor's checks of the store: reachable and migrated, a worker alive on this host, and (PostgreSQL) this host's
// clock against the server's.
import { errorText } from "../../errors.ts";
import { judgeSkew, SKEW_BOUND_MS } from "../../store/server-clock.ts";
import { neutralizeLine } from "../kernel/output.ts";
import type { DoctorCheck } from "./doctor-check.ts";

const unreachable = (error: unknown) => ({
  status: "error" as const,
  detail: `cannot reach the store: ${neutralizeLine(errorText(error))}`,
  fix:
    (error as { hint?: string }).hint ??
    "check AGENT_COMPUTER_DATABASE_URL (PostgreSQL up, credentials) or AGENT_COMPUTER_HOME (SQLite state directory)",
});

export const storeCheck: DoctorCheck = {
  name: "store",
  timeoutMs: 10_000,
  run: async (ctx) => {
    const s = await ctx.inspection().catch((error: unknown) => error as Error);
    if (s instanceof Error) return unreachable(s);
    const where = `${s.dialect} ${neutralizeLine(s.location)}`;
    if (!s.exists) {
      return {
        status: "warn",
        detail: `${where}: no store yet`,
        fix: "nothing to do: the first command that needs it creates it (e.g. agents-list-cli)",
      };
    }
    const known = new Set(s.registered);
    const unknown = s.applied.filter((v) => !known.has(v));
    if (unknown.length > 0) {
      return {
        status: "error",
        detail: `${where}: records migration(s) ${unknown.join(", ")} that this build does not have (a newer agent-computer wrote it)`,
        fix: "upgrade this installation to the release the other hosts run (git pull && npm ci)",
      };
    }
    const pending = s.registered.filter((v) => !s.applied.includes(v));
    if (pending.length > 0) {
      return {
        status: "warn",
        detail: `${where}: ${s.applied.length} of ${s.registered.length} migrations applied (${pending.length} pending)`,
        fix: "the next command that opens the store applies them (e.g. agents-list-cli); stop older releases first",
      };
    }
    return { status: "ok", detail: `${where}: reachable, all ${s.registered.length} migrations applied` };
  },
};

export const workerCheck: DoctorCheck = {
  name: "worker",
  timeoutMs: 10_000,
  run: async (ctx) => {
    const s = await ctx.inspection().catch((error: unknown) => error as Error);
    if (s instanceof Error) return unreachable(s);
    const host = s.host;
    const here = s.workers.filter((w) => w.host === host);
    if (here.length === 0) {
      const elsewhere = s.workers.length > 0 ? ` (${s.workers.length} on other hosts)` : "";
      return {
        status: "warn",
        detail: `no worker is running on ${neutralizeLine(host)}${elsewhere}: no triggers fire, no jobs run, no agent is woken here`,
        fix: "start it: npm start in the checkout, or agent-computer-worker (README: Quick start)",
      };
    }
    const w = here[0] as (typeof here)[number];
    return { status: "ok", detail: `running on ${neutralizeLine(host)}: pid ${w.pid}, ${neutralizeLine(w.url)}` };
  },
};

export const clockCheck: DoctorCheck = {
  name: "clock",
  timeoutMs: 10_000,
  run: async (ctx) => {
    const s = await ctx.inspection().catch((error: unknown) => error as Error);
    if (s instanceof Error) return unreachable(s);
    if (!s.clock) return { status: "ok", detail: "embedded SQLite store: one host, one clock (nothing to compare)" };
    const skew = judgeSkew(s.clock);
    const off = skew.offset_ms;
    const measured = `this host is ${Math.abs(off)} ms ${off > 0 ? "behind" : "ahead of"} the PostgreSQL server (± ${skew.round_trip_ms / 2} ms)`;
    if (!skew.within_bound) {
      return {
        status: "error",
        detail:
          `${measured}, beyond the ${SKEW_BOUND_MS} ms bound: this project's commands and worker add the measured offset, ` +
          "so ttls and leases stay right, but the host's time service is not working and other programs here are off",
        fix: "synchronise this host's clock (timedatectl set-ntp true, or chrony/ntpd), and the server's",
      };
    }
    return { status: "ok", detail: `${measured}, within ${SKEW_BOUND_MS} ms` };
  },
};
