// An idle worker on PostgreSQL relies on NOTIFY (worker/work-hints.ts): its scheduler, executor and webhook sender
// sleep until their next due time or the idle fallback instead of polling every --poll-ms, so an idle host costs the
// server well under one transaction a second. Work that arrives without a notification (written here by raw SQL,
// which sends none) is still picked up within the fallback; SQLite, which has no NOTIFY, keeps its poll interval.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createJob } from "../../app/agent_computer/src/domain/automation/jobs.ts";
import { createCheckback } from "../../app/agent_computer/src/domain/automation/triggers.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { executorService } from "../../app/agent_computer/src/worker/executor.ts";
import { createLogger } from "../../app/agent_computer/src/worker/log.ts";
import { Nudge } from "../../app/agent_computer/src/worker/nudge.ts";
import { webhookDeliveryService } from "../../app/agent_computer/src/worker/outbound-webhook-delivery.ts";
import { presenceService } from "../../app/agent_computer/src/worker/presence.ts";
import { schedulerService } from "../../app/agent_computer/src/worker/scheduler.ts";
import type { WorkerContext } from "../../app/agent_computer/src/worker/worker-context.ts";
import type { WorkerService } from "../../app/agent_computer/src/worker/worker-service.ts";
import { jobDir } from "../helpers/automation.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";
import { pollUntil } from "../helpers/wait.ts";

const POLL_MS = 250;
/** Set small here so a missed notification's cost can be seen; the worker's default is 30 s. */
const FALLBACK_MS = 1_500;
const FAR = 24 * 3_600_000;

/** The store with every transaction counted: what an idle worker costs the server. */
const counting = (store: Store) => {
  const counts = { transactions: 0 };
  const counted = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if ((key === "read" || key === "write") && typeof value === "function") {
        return (...args: unknown[]) => {
          counts.transactions += 1;
          return value.apply(target, args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { counted, counts };
};

/** The worker's services that poll the store, over `store`, as the daemon wires them. */
const startServices = (mesh: MeshAgents, store: Store, idlePollMs: number) => {
  const deps: Deps = { ...mesh.deps(), store, now: () => Date.now() };
  const home = mkdtempSync(join(tmpdir(), "ac-idle-worker-"));
  const ctx: WorkerContext = {
    workerId: `wrk_idle_${idlePollMs}`,
    store,
    options: {
      host: "127.0.0.1",
      port: 0,
      concurrency: 2,
      once: false,
      leaseSeconds: 30,
      pollMs: POLL_MS,
      idlePollMs,
      drainSeconds: 1,
      skillsDir: "",
      webhooks: { backoffMs: [1000], disableAfter: 5, timeoutMs: 5_000, retentionDays: 7 },
    },
    paths: resolvePaths({ AGENT_COMPUTER_HOME: home }),
    // The attempt itself is not the point here: its claim is.
    install: { root: "", bunPath: process.execPath, standalone: false, sdkPreload: "", mcporterCli: "", defaultSkillsDir: "" },
    env: {},
    log: createLogger(() => {}),
    deps: { ...deps, local: { hostId: "test-host", addresses: () => [] } } as unknown as Deps,
    nudge: { scheduler: new Nudge(), executor: new Nudge(), webhooks: new Nudge() },
    hints: { live: false },
    localUrl: () => "http://127.0.0.1:1",
    consoleToken: "",
    consoleUser: "idle-test",
  };
  const services: WorkerService[] = [presenceService, schedulerService, executorService, webhookDeliveryService].map((create) =>
    create(ctx),
  );
  for (const service of services) service.start();
  return { ctx, stop: () => Promise.all(services.map((s) => s.drain())) };
};

describe.each(storeNames)("an idle worker's polls [%s]", (storeName) => {
  let mesh: MeshAgents;
  let jobId = "";

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName, Date.now());
    await mesh.join("owner");
    const call = { agentId: "owner", token: mesh.token("owner") as string };
    const deps = { ...mesh.deps(), now: () => Date.now() };
    jobId = (
      await createJob(deps, { ...call, dir: jobDir("console.log(1)"), label: "idle", wakeOnFailure: false, timeoutSeconds: 60 })
    ).id;
    // Known to the scheduler as due a day from now.
    await createCheckback(deps, { ...call, dueAt: Date.now() + FAR, baseUrl: "http://127.0.0.1:1" });
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test.runIf(storeName === "postgres")("an idle worker with LISTEN costs the server under one transaction a second", async () => {
    const { counted, counts } = counting(mesh.store);
    const worker = startServices(mesh, counted, 30_000);
    try {
      // Subscribed (a worker whose services ignore hints never says so: its count below is what fails).
      await pollUntil(async () => (worker.ctx.hints?.live ? true : undefined), {
        timeoutMs: 5_000,
        stepMs: 20,
        what: "LISTEN",
      }).catch(() => undefined);
      // The first look after subscribing, then nothing due for a day and no notification.
      await Bun.sleep(1_000);
      const before = counts.transactions;
      await Bun.sleep(3_000);
      // Polling every 250 ms, three services took 12 a second; now at most the presence renewal (every 10 s).
      expect(counts.transactions - before).toBeLessThanOrEqual(2);
    } finally {
      await worker.stop();
    }
  });

  test("work written without a notification is picked up within the fallback (SQLite: within its poll)", async () => {
    const worker = startServices(mesh, mesh.store, FALLBACK_MS);
    // Without LISTEN (SQLite) every service keeps polling every POLL_MS.
    const bound = storeName === "postgres" ? FALLBACK_MS : POLL_MS;
    try {
      if (storeName === "postgres")
        await pollUntil(async () => (worker.ctx.hints?.live ? true : undefined), {
          timeoutMs: 5_000,
          stepMs: 20,
          what: "LISTEN",
        });
      await Bun.sleep(300);
      const dueNow = Date.now();
      await mesh.target.sql("UPDATE automation_triggers SET due_at = $1 WHERE kind = 'checkback'", [dueNow]);
      await mesh.target.sql(
        `INSERT INTO automation_runs (id, job_id, owner, trigger_kind, event, state, created_at)
         VALUES ('run_silent', $1, 'owner', 'manual', '{}', 'queued', $2)`,
        [jobId, dueNow],
      );
      const fired = async () =>
        (await mesh.count("SELECT COUNT(*) AS n FROM automation_firings")) > 0 ? Date.now() - dueNow : undefined;
      const claimed = async () =>
        (await mesh.count("SELECT COUNT(*) AS n FROM automation_runs WHERE id = 'run_silent' AND state <> 'queued'")) > 0
          ? Date.now() - dueNow
          : undefined;
      const [firedAfter, claimedAfter] = await Promise.all([
        pollUntil(fired, { timeoutMs: 10_000, stepMs: 20, what: "the checkback to fire" }),
        pollUntil(claimed, { timeoutMs: 10_000, stepMs: 20, what: "the queued run to be claimed" }),
      ]);
      // The bound plus a margin for a loaded machine, and well short of the day the scheduler knew of.
      expect(firedAfter).toBeLessThan(bound + 1_000);
      expect(claimedAfter).toBeLessThan(bound + 1_000);
    } finally {
      await worker.stop();
    }
  });
});
