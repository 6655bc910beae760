// 100 hosts' workers on one PostgreSQL, in this process: each host has its own host id, state directory and store
// (its own connection pool and LISTEN connection, as a worker process has), runs the worker's real services
// (worker/services.ts: presence, scheduler, executor, webhooks, …) and the real wake watcher (wake/watcher.ts) over
// its own registrations. Only Herdr is a stand-in, in process: a pane whose agent is idle and whose status wait
// times out, which records each prompt typed into it (100 `herdr agent wait` processes would measure Herdr).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Herdr, HerdrAgent } from "../app/agent_computer/src/adapters/herdr/client.ts";
import { HerdrError } from "../app/agent_computer/src/adapters/herdr/failure-kinds.ts";
import { depsOver } from "../app/agent_computer/src/cli/kernel/composition-root.ts";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import type { Deps } from "../app/agent_computer/src/domain/deps.ts";
import { newId } from "../app/agent_computer/src/domain/ids.ts";
import { wakeTuningFromEnv } from "../app/agent_computer/src/domain/wake/tuning.ts";
import {
  ensureWakeDir,
  localWakeRegistry,
  storeLabel,
  wakeDirFor,
  writeRegistration,
} from "../app/agent_computer/src/local/wake-registrations.ts";
import { resolvePaths } from "../app/agent_computer/src/paths.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import type { Store } from "../app/agent_computer/src/store/port.ts";
import { runWakeWatcher } from "../app/agent_computer/src/wake/watcher.ts";
import { wakeService } from "../app/agent_computer/src/worker/auto-wake.ts";
import { installPaths } from "../app/agent_computer/src/worker/install-paths.ts";
import type { Logger } from "../app/agent_computer/src/worker/log.ts";
import { Nudge } from "../app/agent_computer/src/worker/nudge.ts";
import { workerServices } from "../app/agent_computer/src/worker/services.ts";
import type { WorkerOptions } from "../app/agent_computer/src/worker/worker-context.ts";
import type { WorkerService } from "../app/agent_computer/src/worker/worker-service.ts";

/** The worker's defaults (agent-computer-worker --help), with no HTTP server: nothing here calls a worker. */
const WORKER_OPTIONS: WorkerOptions = {
  host: "127.0.0.1",
  port: 0,
  concurrency: 4,
  once: false,
  leaseSeconds: 30,
  pollMs: 250,
  idlePollMs: 30_000,
  drainSeconds: 30,
  skillsDir: installPaths().defaultSkillsDir,
  webhooks: { backoffMs: [5000], disableAfter: 20, timeoutMs: 10_000, retentionDays: 7 },
};

/** Counts what the services log at warn and error, so a host that fails is seen instead of measured as idle. */
const countingLogger = (counts: { warn: number; error: number; last: string }): Logger => ({
  log: (level, msg, fields) => {
    if (level === "warn" || level === "error") {
      counts[level] += 1;
      counts.last = `${msg} ${JSON.stringify(fields ?? {})}`.slice(0, 300);
    }
  },
  format: "json",
  plain: () => {},
  child: () => countingLogger(counts),
});

/** A Herdr pane whose agent stays idle: status waits time out, prompts are recorded with their time. */
const idlePane = (paneId: string, onPrompt: (text: string) => void): Herdr => {
  const agent = (): HerdrAgent => ({
    paneId,
    terminalId: `term-${paneId}`,
    workspaceId: "w1",
    tabId: "w1:t1",
    name: undefined,
    kind: "claude",
    status: "idle",
    stateChangeSeq: 1,
    cwd: "/tmp",
    focused: false,
    interactiveReady: true,
    launchPending: false,
  });
  const unused = async (): Promise<never> => {
    throw new HerdrError("usage", "not offered by the bench's stand-in", { command: "unused" });
  };
  return {
    listAgents: async () => [agent()],
    getAgent: async () => agent(),
    promptAgent: async (_target, text) => {
      onPrompt(text);
      return agent();
    },
    waitAgent: (_target, { timeoutMs, signal }) =>
      new Promise((_resolve, reject) => {
        const timer = setTimeout(() => reject(new HerdrError("timeout", "timed out", { command: "agent wait" })), timeoutMs);
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new HerdrError("cancelled", "cancelled", { command: "agent wait" }));
        });
      }),
    readAgent: unused,
    readPane: unused,
    startAgent: unused,
    createTab: unused,
    getPane: async () => ({ ...agent(), label: undefined }),
    closePane: unused,
  };
};

export interface SimHost {
  id: string;
  deps: Deps;
  store: Store;
  /** Prompts typed into this host's armed pane: when, and the wake token in it. */
  prompts: { at: number; text: string }[];
  logged: { warn: number; error: number; last: string };
  /** Checks in this host's sleeper and arms it in the stand-in pane; its watcher picks it up within a second. */
  arm(): Promise<{ agentId: string; token: string }>;
  stop(): Promise<void>;
}

export const startHost = async (index: number, baseDir: string, pgUrl: string, extraEnv: Record<string, string>) => {
  const id = `host-${index}`;
  const home = join(baseDir, id);
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {
    ...extraEnv,
    HOME: home,
    AGENT_COMPUTER_HOME: home,
    AGENT_COMPUTER_DATABASE_URL: pgUrl,
    AGENT_COMPUTER_HOST_ID: id,
    // One wake per message sent below: the cap is per hour and per agent.
    AGENT_COMPUTER_WAKE_HOURLY_CAP: "120",
  };
  const paths = resolvePaths(env);
  const store = await openStore(env, { longLived: true });
  const deps: Deps = { ...(await depsOver({ env, now: () => Date.now() }, "live"))(store), host: id };
  const logged = { warn: 0, error: 0, last: "" };
  const log = countingLogger(logged);
  const ctx = {
    workerId: newId("wrk"),
    store,
    options: WORKER_OPTIONS,
    paths,
    install: installPaths(),
    env,
    log,
    deps,
    nudge: { scheduler: new Nudge(), executor: new Nudge(), webhooks: new Nudge() },
    hints: { live: false },
    localUrl: () => "",
    consoleToken: "",
    consoleUser: `bench-${index}`,
  };
  const services: WorkerService[] = workerServices.filter((s) => s !== wakeService).map((create) => create(ctx));
  for (const service of services) service.start();
  const wakeDir = ensureWakeDir(wakeDirFor(env, paths), storeLabel(env, paths));
  const prompts: SimHost["prompts"] = [];
  const pane = idlePane(`p${index}`, (text) => prompts.push({ at: performance.now(), text }));
  const abort = new AbortController();
  const watcherDone = runWakeWatcher(
    {
      store,
      host: id,
      newId,
      now: () => Date.now(),
      tuning: wakeTuningFromEnv(env, "postgres"),
      registry: localWakeRegistry(wakeDir),
      herdrFor: () => pane,
      log: (level, msg, fields) => log.log(level, msg, fields),
    },
    { signal: abort.signal, exitWhenIdle: false },
  );
  const host: SimHost = {
    id,
    deps,
    store,
    prompts,
    logged,
    arm: async () => {
      const agentId = `sleeper-${index}`;
      const r = await checkIn(deps, { agentId, token: undefined, ttlSeconds: 86_400 });
      writeRegistration(wakeDir, {
        agent_id: agentId,
        pane_id: `p${index}`,
        session_id: r.session_id,
        terminal_id: `term-p${index}`,
        kind: "claude",
        herdr_env: {},
        armed_at: Date.now(),
      });
      return { agentId, token: r.agent_token as string };
    },
    stop: async () => {
      abort.abort();
      await Promise.all(services.map((s) => s.drain()));
      await watcherDone;
      await store.close();
    },
  };
  return host;
};
