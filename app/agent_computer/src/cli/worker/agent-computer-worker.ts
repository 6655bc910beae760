import * as z from "zod/mini";
import { nameThisProcess } from "../../adapters/process-name.ts";
import { consoleLink } from "../../console/access.ts";
import { newId } from "../../domain/ids.ts";
import { DEFAULT_DISABLE_AFTER } from "../../domain/outbound-webhooks/delivery.ts";
import { DEFAULT_WEBHOOK_RETENTION_DAYS } from "../../domain/outbound-webhooks/retention.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { ensureConsoleToken } from "../../local/console-token.ts";
import { SKEW_BOUND_MS } from "../../store/server-clock.ts";
import { LOG_FORMATS } from "../../worker/log.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import type { CommandContext } from "../kernel/command-context.ts";
import { depsOver as depsOverFromRoot, processUser } from "../kernel/composition-root.ts";

const OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * An IPv4 address, something shaped like an IPv6 address (the bind itself judges the rest), or an RFC 1123 host
 * name whose last label is not all digits (999.1.1.1 is a bad address, not a name). "-" or ".." never reach a bind.
 */
const isHost = (host: string): boolean => {
  if (IPV4.test(host)) return true;
  if (host.includes(":")) return /^[0-9A-Fa-f:.]{2,45}$/.test(host);
  const labels = host.split(".");
  return host.length <= 253 && labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels.at(-1) ?? "");
};

const STEP = /^(\d{1,9})(ms|s|m|h)$/;
const STEP_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "5s,30s,2m": the waits before each retry of an outbound webhook, in milliseconds. */
const backoffSchema = z
  .pipe(
    z
      .string()
      .check(
        z.refine(
          (text) => text.split(",").length <= 20 && text.split(",").every((step) => STEP.test(step.trim())),
          "must be 1-20 comma-separated waits like 500ms, 5s, 2m or 1h",
        ),
      ),
    z.transform((text: string) =>
      text.split(",").map((step) => {
        const [, n, unit] = STEP.exec(step.trim()) as RegExpExecArray;
        return Number(n) * (STEP_MS[unit as string] as number);
      }),
    ),
  )
  .check(z.refine((steps) => steps.every((ms) => ms <= 7 * 86_400_000), "each wait must be at most 7 days"));

/** A whole number in [min, max] from a flag's text. */
const wholeNumber = (min: number, max: number) => z.coerce.number().check(z.int(), z.minimum(min), z.maximum(max));
const described = <T extends z.ZodMiniType>(schema: T, text: string): T => schema.check(z.describe(text)) as T;

export const workerOptionsSchema = z
  .object({
    port: described(
      z.optional(wholeNumber(0, 65_535)),
      "HTTP port for webhooks, SDK calls and the console; default 8787, or a free port with --once; 0 = any free port",
    ),
    host: described(
      z._default(
        z
          .string()
          .check(
            z.refine(isHost, "must be an IP address or a host name (dot-separated labels of letters, digits and inner hyphens)"),
          ),
        "127.0.0.1",
      ),
      "address to bind; loopback by default (binding a public address exposes the webhook endpoints)",
    ),
    concurrency: described(z._default(wholeNumber(1, 64), 4), "how many attempts run at once on this worker"),
    once: described(z._default(z.boolean(), false), "consume what is due, run every queued run to its end, then exit"),
    leaseSeconds: described(
      z._default(wholeNumber(2, 3600), 30),
      "attempt lease; renewed every third of it; a run whose lease lapses is rescued by another worker as a new attempt",
    ),
    pollMs: described(
      z._default(wholeNumber(20, 10_000), 250),
      "longest sleep between store polls (a trigger consumed here starts at once)",
    ),
    idlePollMs: described(
      z._default(wholeNumber(100, 600_000), 30_000),
      "PostgreSQL with LISTEN: an idle worker sleeps until its next due time or this, as NOTIFY announces new work",
    ),
    drainSeconds: described(
      z._default(wholeNumber(0, 86_400), 30),
      "after the first SIGTERM/SIGINT, how long running attempts may finish before they are killed",
    ),
    skillsDir: described(
      z.optional(z.string().check(z.minLength(1))),
      "directory of Skills whose <name>/mcp.json declare MCP servers for attempts; default AGENT_COMPUTER_SKILLS_DIR, else the package's skills/",
    ),
    logFormat: described(
      z.optional(z.enum(LOG_FORMATS)),
      "text (for a person) or json (an object per line); default text when stderr is a terminal",
    ),
    webhookBackoff: described(
      z.prefault(backoffSchema, "5s,30s,2m,10m,30m,2h,6h"),
      "outbound webhooks (agent-webhook-cli): wait before each retry, each stretched by up to 25% at random",
    ),
    webhookDisableAfter: described(
      z._default(wholeNumber(1, 1000), DEFAULT_DISABLE_AFTER),
      "outbound webhooks: disable an endpoint after this many events in a row failed every attempt",
    ),
    webhookTimeoutSeconds: described(z._default(wholeNumber(1, 300), 10), "outbound webhooks: one attempt's time limit"),
    webhookRetentionDays: described(
      z._default(wholeNumber(1, 3650), DEFAULT_WEBHOOK_RETENTION_DAYS),
      "outbound webhooks: days a delivered or failed event and its attempts are kept",
    ),
    consoleUrl: described(
      z._default(z.boolean(), false),
      "print the link that opens the console (it carries the console token) for the worker on --port/--host, and exit; starts nothing",
    ),
  })
  .check(
    z.superRefine((o, ctx) => {
      if (!o.consoleUrl) return;
      if (o.port === 0)
        ctx.addIssue({
          code: "custom",
          path: ["port"],
          message:
            "0 names no worker: with --console-url, pass the port the worker listens on (its start line logs it in console_url)",
          input: o.port,
        });
      if (o.once)
        ctx.addIssue({
          code: "custom",
          path: ["once"],
          message: "does not combine with --console-url, which starts nothing",
          input: o.once,
        });
    }),
  );

export type WorkerCliOptions = z.output<typeof workerOptionsSchema>;

/**
 * A worker stopped by a signal ends by that same signal, after the kernel has printed the summary and closed the
 * store: its parent sees how it stopped (a shell's $? is 143 or 130, `npm start` ends the same way, systemd
 * counts it a clean stop). Listeners left by libraries would catch the signal and let the exit status be 0.
 */
const endBySignalAtExit = (signal: "SIGTERM" | "SIGINT"): void => {
  process.once("exit", () => {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
};

/** The console link for the worker on these flags: what the owner opens in a browser. */
const printConsoleUrl = async (options: WorkerCliOptions, ctx: CommandContext) => {
  const { localUrlFor } = await import("../../worker/http.ts");
  const url = localUrlFor(options.host, options.port ?? 8787);
  return { console_url: consoleLink(url, ensureConsoleToken(ctx.paths.stateDir)) };
};

const runWorkerCommand = async (options: WorkerCliOptions, { ctx }: DepsOf<"none">) => {
  if (options.consoleUrl) return printConsoleUrl(options, ctx);
  nameThisProcess("agent-computer-worker");
  const stderrIsTerminal = process.stderr.isTTY === true;
  const [{ runWorker }, { installPaths }, depsOver] = await Promise.all([
    import("../../worker/daemon.ts"),
    import("../../worker/install-paths.ts"),
    depsOverFromRoot(ctx, "live"),
  ]);
  const summary = await runWorker({
    // A fresh open per try: the worker waits for a store that is not up yet (worker/store-wait.ts).
    openStore: () => import("../../store/open.ts").then((m) => m.openStore(ctx.env, { longLived: true })),
    env: ctx.env,
    paths: ctx.paths,
    depsOver,
    newId,
    consoleToken: ensureConsoleToken(ctx.paths.stateDir),
    consoleUser: processUser(ctx.env),
    stderrIsTerminal,
    logFormat: options.logFormat ?? (stderrIsTerminal ? "text" : "json"),
    options: {
      host: options.host,
      port: options.port ?? (options.once ? 0 : 8787),
      concurrency: options.concurrency,
      once: options.once,
      leaseSeconds: options.leaseSeconds,
      pollMs: options.pollMs,
      idlePollMs: options.idlePollMs,
      drainSeconds: options.drainSeconds,
      skillsDir: options.skillsDir ?? ctx.env.AGENT_COMPUTER_SKILLS_DIR ?? installPaths().defaultSkillsDir,
      webhooks: {
        backoffMs: options.webhookBackoff,
        disableAfter: options.webhookDisableAfter,
        timeoutMs: options.webhookTimeoutSeconds * 1000,
        retentionDays: options.webhookRetentionDays,
      },
    },
  });
  if (summary.stopped_by !== "once") endBySignalAtExit(summary.stopped_by);
  return summary;
};

type Summary = Awaited<ReturnType<typeof runWorkerCommand>>;

const render = (s: Summary): string =>
  "console_url" in s
    ? s.console_url
    : `worker ${s.worker_id} stopped (${s.mode}, by ${s.stopped_by}${s.forced ? ", forced: running attempts were killed and released" : ""})`;

export default defineCommand({
  name: "agent-computer-worker",
  summary: "the per-host daemon: fires checkbacks and cron ticks, runs automation jobs, receives webhooks",
  description:
    "One per host; several may share a PostgreSQL store, which still consumes each trigger once. On one HTTP server " +
    "(loopback by default): the scheduler (checkbacks, cron), the run executor (fenced attempts, --concurrency at a " +
    "time), the webhook receiver (POST /hooks/<endpoint-id>: create-webhook-cli --help) and its scripts' emitEvent " +
    "calls, the outbound webhook sender, the console (live pages: jobs, runs, tails, triggers, the mesh; " +
    "writes as its owner's human agent; loopback host names only). Logs go to stderr, stdout gets only the summary; `ps` names it " +
    `agent-computer-worker. On PostgreSQL times are the server's clock: the host's offset is measured at start and ` +
    `every 5 min, and one over ${SKEW_BOUND_MS} ms is logged as a warning.\n` +
    "Console: only a browser holding the console token, a random secret kept 0600 in $AGENT_COMPUTER_HOME/console-token " +
    "(made once, kept across restarts); other Unix users get 401. `--console-url [--port N]` prints the link " +
    "(http://127.0.0.1:8787/?token=…; never in argv); opened once, it sets an HttpOnly, SameSite=Strict cookie for 30 " +
    "days and redirects without the token. The start line has the link (Console: …, or console_link) only when " +
    "stderr is a terminal, else the command that prints it (console_link_command): the token never reaches a log or " +
    "journal. Removing console-token and restarting signs every browser out. Webhook deliveries and emitEvent calls " +
    "are signed instead.\n" +
    "Runs: an attempt is `bun --no-orphans main.ts` (the job directory's CURRENT main.ts, by real path) in its own " +
    "process group, cwd the job directory, an environment built from scratch (PATH with bun and mcporter, HOME, the " +
    "owner's WorkerEnv, MCPORTER_CONFIG), its group killed at the job's timeout. Script exception, non-zero exit and " +
    "timeout are final. Tails keep NUL as the text \\u0000, invalid UTF-8 as U+FFFD; a result the store refuses fails " +
    "the run (result_unstorable). If the worker dies, the lease lapses and another worker starts a new fenced attempt " +
    "(at most 3); the old one's writes are refused.\n" +
    "MCP: each attempt gets a 0600 mcporter config from the Skills' mcp.json files under --skills-dir " +
    `({"mcpServers":{…}}; $\{SKILL_DIR} is the skill directory), with "imports": [] and ephemeral servers.\n` +
    "A store unreachable at start is retried with a doubling delay (0.5 s to 30 s, each try logged) until a signal; " +
    "--once does not wait. Shutdown: the first SIGTERM/SIGINT stops intake and lets attempts finish for up to " +
    "--drain-seconds; a second signal (or the deadline) kills them and releases their runs to other workers. Exit: 0 " +
    "when --once ran out of work; stopped by a signal, it prints its summary and ends by that signal (143 or 130 in a " +
    "shell, a stop by signal to a supervisor); else the codes below. Jobs and triggers: create-automation-job-cli --help. Upkeep: agent-computer-admin --help.",
  schema: workerOptionsSchema,
  writes:
    "trigger firings, runs and attempts (state, exit code, error, output tails), events in owners' sessions, outbound " +
    "webhook attempts and disabled endpoints' notices (ended events go after --webhook-retention-days), its worker " +
    "record; per-attempt files under $AGENT_COMPUTER_HOME/run/attempts (gone when the attempt ends); " +
    "$AGENT_COMPUTER_HOME/console-token (0600) if missing, also with --console-url (which writes nothing else).",
  output:
    '{"worker_id","url","mode":"once|daemon","stopped_by":"once|SIGTERM|SIGINT","forced"}; with --console-url: {"console_url"} (the link; text: the link alone)',
  errors: ["INVALID_INPUT", "ADDRESS_IN_USE", ...STORE_ERRORS, "INTERNAL"],
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "AGENT_COMPUTER_SKILLS_DIR"],
  examples: [
    "agent-computer-worker                      # daemon on 127.0.0.1:8787, embedded store",
    "agent-computer-worker --once --json        # fire what is due, run it, exit",
    "AGENT_COMPUTER_DATABASE_URL=postgres://ac@db/ac agent-computer-worker --concurrency 8 --port 8788",
    "agent-computer-worker --console-url         # the console link for the worker on 8787 (keep it private)",
  ],
  needs: { deps: "none" },
  run: runWorkerCommand,
  render,
});
