// Liveness verdicts (pid evidence on its own host, age elsewhere) and the real /proc probe, including zombies.
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { probePid } from "../../app/agent_computer/src/adapters/local-host.ts";
import type { LocalHost, LocalProcess } from "../../app/agent_computer/src/domain/deps.ts";
import { livenessOf } from "../../app/agent_computer/src/domain/identity/liveness.ts";
import { parseRateRule } from "../../app/agent_computer/src/domain/identity/rate-config.ts";
import type { SessionRecord } from "../../app/agent_computer/src/store/port.ts";
import { memoryProcesses } from "../helpers/local-processes.ts";

const NOW = Date.UTC(2026, 10, 30, 12);
const session = (expiresAt: number, endedAt: number | null = null): SessionRecord => ({
  id: "ses_1",
  agentId: "a",
  host: "h",
  role: null,
  repo: null,
  caps: [],
  statusLine: null,
  statusSetAt: null,
  ttlSeconds: 60,
  startedAt: NOW - 1000,
  lastActivityAt: NOW - 1000,
  expiresAt,
  watermarkSeq: 0,
  endedAt,
});
/** Host host-a, running `processes` (pid: start time), where agent "a" registered `recorded` (its pid 42 by default). */
const host = (
  processes: Record<number, string | null>,
  recorded: LocalProcess | null = { agentPid: 42, agentPidStart: "1000", hostShellPids: null },
): LocalHost => ({
  hostId: "host-a",
  probe: (pid) => (pid in processes ? { exists: true, startTime: processes[pid] ?? null } : { exists: false, startTime: null }),
  processes: memoryProcesses(recorded ? { a: recorded } : {}),
  addresses: () => [],
});
const agent = (over: Partial<{ hostId: string | null }> = {}) => ({ agentId: "a", hostId: "host-a", ...over });

describe("livenessOf", () => {
  test("same host, pid running with the recorded start time: alive by pid even after its session expired", () => {
    expect(livenessOf(agent(), session(NOW - 1), NOW, host({ 42: "1000" }))).toEqual({ alive: true, evidence: "pid" });
  });
  test("same host, no such pid: dead by pid even though the session is fresh", () => {
    expect(livenessOf(agent(), session(NOW + 60_000), NOW, host({}))).toEqual({ alive: false, evidence: "pid" });
  });
  test("same host, the pid now belongs to a process with another start time: a reused pid is dead", () => {
    expect(livenessOf(agent(), session(NOW + 60_000), NOW, host({ 42: "2000" }))).toEqual({ alive: false, evidence: "pid" });
  });
  test("another host: the pid proves nothing and age decides", () => {
    const other = { ...host({}), hostId: "host-b" };
    expect(livenessOf(agent(), session(NOW + 60_000), NOW, other)).toEqual({ alive: true, evidence: "age" });
    expect(livenessOf(agent(), session(NOW - 1), NOW, other)).toEqual({ alive: false, evidence: "age" });
  });
  test("no pid recorded on this host: age, and an ended session is not alive", () => {
    const unrecorded = host({}, null);
    expect(livenessOf(agent(), session(NOW + 60_000), NOW, unrecorded)).toEqual({ alive: true, evidence: "age" });
    expect(livenessOf(agent(), session(NOW + 60_000, NOW - 5), NOW, unrecorded).alive).toBe(false);
    expect(livenessOf(agent(), undefined, NOW, unrecorded).alive).toBe(false);
  });
});

describe("probePid on this host", () => {
  test("a running process exists and reports field 22 of /proc/<pid>/stat", async () => {
    const child = execa("sleep", ["30"]);
    try {
      const status = probePid(child.pid as number);
      expect(status.exists).toBe(true);
      expect(status.startTime).toMatch(/^\d+$/);
      expect(probePid(child.pid as number).startTime).toBe(status.startTime);
    } finally {
      child.kill("SIGKILL");
      await child.catch(() => undefined);
    }
  });

  test("a killed and reaped process does not exist", async () => {
    const child = execa("sleep", ["30"]);
    const pid = child.pid as number;
    child.kill("SIGKILL");
    await child.catch(() => undefined);
    expect(probePid(pid).exists).toBe(false);
  });

  test("a killed but unreaped process (zombie) counts as gone", async () => {
    // sh starts sleep in the background and then becomes `sleep 60`, which never reaps it.
    const parent = execa("sh", ["-c", "sleep 60 & echo $!; exec sleep 60"]);
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout?.once("data", (d) => resolve(Number(String(d).trim()))));
      expect(probePid(pid).exists).toBe(true);
      process.kill(pid, "SIGKILL");
      await expect.poll(() => probePid(pid).exists, { timeout: 5000 }).toBe(false);
    } finally {
      parent.kill("SIGKILL");
      await parent.catch(() => undefined);
    }
  });
});

describe("rate rule syntax", () => {
  test("N/S and off are accepted; anything else names the variable", () => {
    expect(parseRateRule("V", "20/60")).toEqual({ max: 20, windowS: 60 });
    expect(parseRateRule("V", " off ")).toBeNull();
    for (const bad of ["0/60", "20/0", "20", "x/60", "-1/60"]) expect(() => parseRateRule("V", bad)).toThrow(/^V: must be N\/S/);
  });
});
