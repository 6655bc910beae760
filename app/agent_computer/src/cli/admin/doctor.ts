import * as z from "zod/mini";
import { AppError } from "../../errors.ts";
import type { StoreInspection } from "../../store/admin/inspect.ts";
import { SKEW_BOUND_MS } from "../../store/server-clock.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ADMIN_ENV } from "./admin-env.ts";
import { type CheckReport, runChecks, type Verdict } from "./doctor-check.ts";
import { doctorChecks } from "./doctor-checks.ts";
import { DISK_ERROR_BYTES, DISK_WARN_BYTES } from "./doctor-host-checks.ts";

export const doctorOptionsSchema = z.object({});
type DoctorOptions = z.output<typeof doctorOptionsSchema>;

export interface DoctorResult {
  checks: CheckReport[];
  ok: number;
  warn: number;
  error: number;
}

export const runDoctor = async (_options: DoctorOptions, { ctx }: DepsOf<"none">): Promise<DoctorResult> => {
  let inspected: Promise<StoreInspection> | undefined;
  const inspection = (): Promise<StoreInspection> => {
    inspected ??= import("../../store/admin/inspect.ts").then((m) => m.inspectStore(ctx.env, ctx.now));
    return inspected;
  };
  const checks = await runChecks(doctorChecks, {
    env: ctx.env,
    launchEnv: process.env,
    stateDir: ctx.paths.stateDir,
    now: ctx.now,
    inspection,
  });
  const count = (status: Verdict) => checks.filter((c) => c.status === status).length;
  return { checks, ok: count("ok"), warn: count("warn"), error: count("error") };
};

const WIDTH = Math.max(...doctorChecks.map((c) => c.name.length));

const render = (r: DoctorResult): string =>
  [
    ...r.checks.flatMap((c) => [
      `${c.status.padEnd(5)} ${c.name.padEnd(WIDTH)}  ${c.detail}`,
      ...(c.fix && c.status !== "ok" ? [`${" ".repeat(6 + WIDTH)}  fix: ${c.fix}`] : []),
    ]),
    `doctor: ${r.ok} ok, ${r.warn} warn, ${r.error} error${r.error > 0 ? " (exit 4)" : ""}`,
  ].join("\n");

export default defineCommand({
  name: "agent-computer-admin doctor",
  summary: "check this installation and explain each problem with its fix",
  description:
    "Checks, each bounded in time (a program that hangs is reported, not waited for), and reports one line per check " +
    "(ok, warn or error, then the fix): settings (state dir, database URL, agent id: value and source, flag/env/config/default; a bad config file is an error), store (reachable; every migration of this build applied; never migrates or " +
    "creates it), clock (PostgreSQL: this host's clock against the server's clock_timestamp(), half the round trip " +
    `as the uncertainty; a skew beyond ${SKEW_BOUND_MS} ms after the uncertainty is an error: times are corrected by ` +
    "the measured offset, but such a clock says the host's time service is broken), worker (one reported within 30 s from this host), " +
    "console-token (present and 0600), disk (free space for the state directory: below " +
    `${DISK_WARN_BYTES / 1024 / 1024} MiB warn, below ${DISK_ERROR_BYTES / 1024 / 1024} MiB error), herdr (found, ` +
    "its and the server's version and protocol), tmux, bwrap, uv (found, with versions), claude-code and codex (this " +
    "project's Skills linked and the SessionStart hook set in the user's configuration, when the client is set up), " +
    "path (this installation's binaries on PATH). A warning is something a feature lacks; an error is something " +
    "broken. Exit 4 (CHECK_FAILED, after the report) when any check is an error, 0 otherwise. Changes nothing.",
  schema: doctorOptionsSchema,
  writes: "nothing.",
  output: '{"checks":[{"name","status":"ok|warn|error","detail","fix"?}],"ok","warn","error"}',
  errors: ["INVALID_INPUT", "CHECK_FAILED", "INTERNAL"],
  env: [...ADMIN_ENV, "CLAUDE_CONFIG_DIR", "CODEX_HOME", "AGENT_COMPUTER_BWRAP", "AGENT_COMPUTER_UV", "HERDR_SOCKET_PATH"],
  examples: ["agent-computer-admin doctor", "agent-computer-admin doctor --json | jq '.checks[] | select(.status != \"ok\")'"],
  needs: { deps: "none" },
  run: runDoctor,
  render,
  failsWith: (r: DoctorResult) =>
    r.error > 0
      ? new AppError("CHECK_FAILED", `${r.error} check${r.error === 1 ? "" : "s"} found something broken`, {
          hint: "each error line above is followed by its fix",
        })
      : undefined,
});
