// What the multi-host suite's scenarios share (test/multihost): three hosts on one PostgreSQL with a worker each, an
// agent checked in on each, CLIs run as an agent on its host, and the host-local facts that must never reach the
// shared database.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { jobDir, scratchDir, waitFor } from "./automation.ts";
import type { BinResult } from "./bin.ts";
import { type HostWorker, startHosts, type TestHost, type TestHosts } from "./netns-hosts.ts";

const WORKER_ARGS = ["--concurrency", "2", "--lease-seconds", "3", "--poll-ms", "100"];

export interface Agent {
  id: string;
  host: TestHost;
  tokenFile: string;
}

export interface SendJson {
  id: string;
  recipients: { agent_id: string; outcome: string }[];
}
export interface InboxJson {
  messages: { id: string; seq: number; from: string; body: string; kind: string }[];
}
export interface DirectoryJson {
  agent_id: string;
  host: string;
  alive: boolean;
  liveness_evidence: string;
}

/** Runs a CLI on the agent's host as the agent, with --json; throws unless it exits as expected. */
export const as = async <T = Record<string, unknown>>(agent: Agent, bin: string, args: string[], expectExit = 0): Promise<T> => {
  const words = bin.split(" ");
  const r = await agent.host.run(words[0] as string, [
    ...words.slice(1),
    "--agent-id",
    agent.id,
    "--token-file",
    agent.tokenFile,
    ...args,
    "--json",
  ]);
  if (r.exitCode !== expectExit) throw new Error(`${bin} on ${agent.host.name} exited ${r.exitCode}: ${r.stderr}`);
  return (expectExit === 0 ? r.json() : JSON.parse(r.stderr)) as T;
};

export const checkIn = async (host: TestHost, id: string, extra: string[] = []): Promise<Agent> => {
  const r = await host.run("agent-checkin-cli", ["--agent-id", id, "--confirm", "--json", ...extra]);
  if (r.exitCode !== 0) throw new Error(`check-in of ${id} on ${host.name} failed: ${r.stderr}`);
  const tokenFile = join(host.home, `${id}.token`);
  const token = r.json<{ agent_token?: string }>().agent_token;
  if (token) writeFileSync(tokenFile, token, { mode: 0o600 });
  return { id, host, tokenFile };
};

const errorOf = (r: Pick<BinResult, "stderr">) => (JSON.parse(r.stderr) as { error: Record<string, unknown> }).error;

/** A CLI that could not use PostgreSQL: exit 8, STORE_UNAVAILABLE, no stack trace. Returns the error, for more. */
export const unavailable = (r: Pick<BinResult, "exitCode" | "stderr">): Record<string, unknown> => {
  expect(r.exitCode, r.stderr).toBe(8);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  const error = errorOf(r);
  expect(error.code).toBe("STORE_UNAVAILABLE");
  return error;
};

/** Attempt 1 leaves its credentials and pid, then waits for a release file; later attempts emit and end. */
const heldFirstAttempt = (out: string) => `import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { context, emitEvent } from "agent-computer/automation";
const { run } = context();
const at = ${JSON.stringify(out)} + "/" + run.id + "-" + run.attempt;
writeFileSync(at + ".json", readFileSync(process.env.AGENT_COMPUTER_ATTEMPT_FILE!));
writeFileSync(at + ".pid", String(process.pid));
if (run.attempt === 1) while (!existsSync(${JSON.stringify(out)} + "/release-" + run.id)) await Bun.sleep(100);
await emitEvent({ finished_by_attempt: run.attempt });
`;

export const alive = (pid: number): boolean =>
  existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");

/** The three hosts of one suite and what its scenarios share; `start` in the suite's beforeAll, `teardown` after. */
export class HostsUnderTest {
  world!: TestHosts;
  hosts: TestHost[] = [];
  readonly workers = new Map<string, HostWorker>();
  readonly agents: Agent[] = [];
  /** Facts that must stay on their host; the last scenario looks for each in the shared database. */
  readonly hostLocal = new Set<string>();

  readonly sql = (text: string, params: unknown[] = []) => this.world.pg.sql(text, params);

  readonly start = async (): Promise<void> => {
    this.world = await startHosts(3);
    this.hosts = this.world.hosts;
    for (const h of this.hosts) await this.startWorker(h);
    for (const [i, h] of this.hosts.entries()) this.agents.push(await checkIn(h, `agent-${i + 1}`, ["--role", "builder"]));
  };

  readonly teardown = async (): Promise<void> => this.world?.teardown();

  readonly startWorker = async (host: TestHost): Promise<HostWorker> => {
    const w = await host.startWorker(WORKER_ARGS);
    this.workers.set(host.name, w);
    this.hostLocal.add(String(w.pid));
    return w;
  };

  /** The host whose worker holds the given attempt of a run. */
  readonly holderOf = async (runId: string, attempt: number): Promise<TestHost> => {
    const [row] = await this.sql(
      `SELECT w.host FROM automation_attempts a JOIN automation_workers w ON w.id = a.worker_id
       WHERE a.run_id = $1 AND a.attempt = $2`,
      [runId, attempt],
    );
    const host = this.hosts.find((h) => h.name === row?.host);
    if (!host) throw new Error(`no host holds attempt ${attempt} of ${runId}`);
    return host;
  };

  readonly runRow = async (runId: string) =>
    (await this.sql("SELECT state, attempt FROM automation_runs WHERE id = $1", [runId]))[0] as
      | { state: string; attempt: number }
      | undefined;

  /** A job whose first attempt leaves its pid and credentials in `out` and waits there for a release file. */
  readonly heldJob = async (owner: Agent): Promise<{ out: string; job: { id: string } }> => {
    const out = scratchDir();
    const job = await as<{ id: string }>(owner, "create-automation-job-cli", [
      "--dir",
      jobDir(heldFirstAttempt(out)),
      "--label",
      "held",
    ]);
    return { out, job };
  };

  /** Starts `count` runs of a held job and waits until every one is in its first attempt (each worker holds two). */
  readonly heldRuns = async (owner: Agent, count: number) => {
    const { out, job } = await this.heldJob(owner);
    const runIds: string[] = [];
    for (let i = 0; i < count; i++)
      runIds.push((await as<{ run_id: string }>(owner, "run-automation-job-cli", ["--id", job.id])).run_id);
    await waitFor(
      async () => (runIds.every((id) => existsSync(join(out, `${id}-1.pid`))) ? true : undefined),
      60_000,
      `${count} first attempts to start`,
    );
    const held = new Map<string, string[]>();
    for (const id of runIds) {
      const host = (await this.holderOf(id, 1)).name;
      held.set(host, [...(held.get(host) ?? []), id]);
    }
    const release = (ids: string[]) => {
      for (const id of ids) writeFileSync(join(out, `release-${id}`), "");
    };
    const pidOf = (id: string) => Number(readFileSync(join(out, `${id}-1.pid`), "utf8"));
    for (const id of runIds) this.hostLocal.add(String(pidOf(id)));
    return { runIds, held, release, pidOf };
  };

  readonly allSucceeded = (runIds: string[], what: string) =>
    waitFor(
      async () => {
        const rows = await this.sql("SELECT COUNT(*) AS n FROM automation_runs WHERE id = ANY($1) AND state = 'succeeded'", [
          runIds,
        ]);
        return Number(rows[0]?.n) === runIds.length ? true : undefined;
      },
      90_000,
      what,
    );
}
