// A worker started while its PostgreSQL store is unreachable waits for it: it keeps running, logs each try
// with the next delay (never the URL's password), starts and runs jobs once the database answers (a TCP
// proxy on the worker's port appears late), and a SIGTERM while it waits ends it by that signal.
import { connect, createServer, type Server, type Socket } from "node:net";
import { execa, type ResultPromise } from "execa";
import { afterEach, describe, expect, test } from "vitest";
import { automationEnv, cli, createJob, jobDir, logLines, owner, showRuns, waitFor } from "../helpers/automation.ts";
import { binPath } from "../helpers/bin.ts";
import { createStoreTarget, pgUrl, type StoreTarget } from "../helpers/stores.ts";

const started: ResultPromise[] = [];
const servers: Server[] = [];
let target: StoreTarget | undefined;

// Each worker runs in its own process group: cleanup ends the whole group, whatever the test left.
afterEach(async () => {
  for (const child of started.splice(0)) {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // the group is gone already
    }
  }
  for (const server of servers.splice(0)) server.close();
  await target?.dispose();
  target = undefined;
});

/** A loopback port nobody listens on (taken from the kernel, then given back). */
const freePort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
};

/** Forwards every connection on `port` to the real database: the database "comes up" on the worker's port. */
const proxy = async (port: number, to: URL): Promise<void> => {
  const server = createServer((client: Socket) => {
    const upstream = connect(Number(to.port || 5432), to.hostname);
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
};

const startWorker = (env: Record<string, string>) => {
  const child = execa(binPath("agent-computer-worker"), ["--port", "0", "--poll-ms", "200", "--json"], {
    env,
    reject: false,
    detached: true,
    timeout: 120_000,
  });
  started.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const retries = () => logLines(stderr).filter((l) => l.msg === "store unreachable; waiting for it (a signal stops the worker)");
  return { child, stderr: () => stderr, retries };
};

test("started with no database, the worker waits and logs each try; SIGTERM ends it by that signal", async () => {
  target = await createStoreTarget("sqlite");
  const port = await freePort();
  const worker = startWorker({
    ...automationEnv(target),
    AGENT_COMPUTER_DATABASE_URL: `postgres://probe:s3cret-pass@127.0.0.1:${port}/nowhere`,
  });
  const tries = await waitFor(async () => (worker.retries().length >= 2 ? worker.retries() : undefined), 30_000, "two retries");
  expect(worker.child.exitCode).toBeNull();
  expect(tries.slice(0, 2).map((l) => [l.attempt, l.retry_in_ms])).toEqual([
    [1, 500],
    [2, 1000],
  ]);
  expect(String(tries[0]?.error)).toContain("AGENT_COMPUTER_DATABASE_URL");
  process.kill(worker.child.pid as number, "SIGTERM");
  const ended = await worker.child;
  expect(ended.signal).toBe("SIGTERM");
  expect(JSON.parse(String(ended.stdout))).toMatchObject({ stopped_by: "SIGTERM", forced: false });
  expect(worker.stderr()).not.toContain("s3cret-pass");
  expect(worker.stderr()).not.toContain(`127.0.0.1:${port}`);
});

describe.skipIf(!pgUrl)("worker waiting for PostgreSQL [postgres]", () => {
  test("once the database answers on its port, the waiting worker starts and runs a job", async () => {
    target = await createStoreTarget("postgres");
    const env = automationEnv(target);
    const real = new URL(env.AGENT_COMPUTER_DATABASE_URL as string);
    const alice = await owner(env, "alice");
    const jobId = await createJob(env, alice, jobDir('console.log("ran after the wait")'));
    const { run_id } = await cli<{ run_id: string }>(env, alice, "run-automation-job-cli", ["--id", jobId]);

    const port = await freePort();
    const late = new URL(real);
    late.host = `127.0.0.1:${port}`;
    const worker = startWorker({ ...env, AGENT_COMPUTER_DATABASE_URL: late.toString() });
    await waitFor(async () => (worker.retries().length >= 2 ? true : undefined), 30_000, "two retries");
    expect(logLines(worker.stderr()).some((l) => l.msg === "worker started")).toBe(false);

    await proxy(port, real);
    await waitFor(
      async () => (logLines(worker.stderr()).some((l) => l.msg === "worker started") ? true : undefined),
      60_000,
      "the worker's start line",
    );
    const run = await waitFor(
      async () => (await showRuns(env, alice, jobId)).find((r) => r.id === run_id && r.state === "succeeded"),
      30_000,
      "the run to succeed",
    );
    expect(run).toMatchObject({ attempt: 1, stdout_tail: "ran after the wait\n" });
    expect(worker.stderr()).not.toContain(real.password);
    process.kill(worker.child.pid as number, "SIGTERM");
    expect((await worker.child).signal).toBe("SIGTERM");
  });
});
