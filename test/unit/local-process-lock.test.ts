// The one lock of host-local state, judged by process identity: a live holder keeps it; a dead pid, a reused pid
// (same pid, another start time) or a holder from before a reboot is stale and taken over; another host's holder,
// or one that cannot be verified where verification is required, is indeterminate and never touched.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { describe, expect, test } from "vitest";
import { currentBootId, processIdentity } from "../../app/agent_computer/src/adapters/process-ancestry.ts";
import {
  acquireProcessLock,
  inspectProcessLock,
  type LockPolicy,
  readLockHolder,
  releaseProcessLock,
} from "../../app/agent_computer/src/local/process-lock.ts";
import { repoRoot } from "../helpers/bin.ts";
import { pollUntil } from "../helpers/wait.ts";

const HOST = "host-under-test";
const strict: LockPolicy = { host: HOST, unverified: "indeterminate", keepStale: true };
const byPid: LockPolicy = { host: HOST, unverified: "pid", keepStale: false };

const newLock = (): string => join(mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "plock-")), "x.lock");

const identityOf = (pid: number) => processIdentity(pid) as NonNullable<ReturnType<typeof processIdentity>>;

const holderFor = (pid: number, extra: Record<string, unknown> = {}) => ({
  lock_id: "planted",
  pid,
  // A pid that is gone has no start time left to read: any plausible one will do.
  start_ticks: processIdentity(pid)?.startTicks ?? "12345",
  boot_id: currentBootId(),
  host: HOST,
  acquired_at: Date.now(),
  ...extra,
});

const plant = (file: string, holder: Record<string, unknown>): void => writeFileSync(file, JSON.stringify(holder));

const deadPid = async (): Promise<number> => Number((await execa("sh", ["-c", "echo $$"])).stdout.trim());

const stateOf = (file: string, policy: LockPolicy = strict) => inspectProcessLock(file, policy).state;

describe.runIf(currentBootId() !== null)("process lock (Linux procfs)", () => {
  test("a lock held by another live process is held; once that process is gone it is stale and taken", async () => {
    const file = newLock();
    const child = execa("sleep", ["600"]);
    try {
      plant(file, holderFor(child.pid as number));
      expect(inspectProcessLock(file, strict)).toMatchObject({ state: "active", holder: { pid: child.pid } });
      const refused = acquireProcessLock(file, {}, strict);
      expect(refused).toMatchObject({ acquired: false, state: "active", holder: { pid: child.pid } });
    } finally {
      child.kill("SIGKILL");
      await child.catch(() => undefined);
    }
    expect(inspectProcessLock(file, strict)).toMatchObject({ state: "stale", reason: expect.stringContaining("gone") });
    const taken = acquireProcessLock(file, {}, strict);
    expect(taken).toMatchObject({ acquired: true, holder: { pid: process.pid } });
    expect(readLockHolder(file)?.pid).toBe(process.pid);
  });

  test("a reused pid (same pid, another start time) is stale", () => {
    const file = newLock();
    plant(file, holderFor(process.pid, { start_ticks: "1" }));
    expect(inspectProcessLock(file, strict)).toMatchObject({
      state: "stale",
      reason: expect.stringContaining("another process"),
    });
    expect(acquireProcessLock(file, {}, strict).acquired).toBe(true);
  });

  test("a holder from another boot is stale, even under a pid that runs now", () => {
    const file = newLock();
    plant(file, holderFor(process.pid, { boot_id: "00000000-0000-0000-0000-000000000000" }));
    expect(inspectProcessLock(file, strict)).toMatchObject({ state: "stale", reason: expect.stringContaining("reboot") });
    expect(stateOf(file, byPid)).toBe("stale");
    expect(acquireProcessLock(file, {}, byPid).acquired).toBe(true);
  });

  test("indeterminate: another host's holder (every policy) and, where required, one without boot id or start time", async () => {
    const file = newLock();
    const foreign = holderFor(await deadPid(), { host: "other-host" });
    plant(file, foreign);
    expect(inspectProcessLock(file, strict)).toMatchObject({
      state: "indeterminate",
      reason: expect.stringContaining("another host"),
    });
    expect(stateOf(file, byPid)).toBe("indeterminate");
    expect(acquireProcessLock(file, {}, strict)).toMatchObject({ acquired: false, state: "indeterminate" });
    expect(acquireProcessLock(file, {}, byPid)).toMatchObject({ acquired: false, state: "indeterminate" });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(foreign);

    const unverified = newLock();
    plant(unverified, holderFor(await deadPid(), { boot_id: null, start_ticks: null }));
    expect(inspectProcessLock(unverified, strict)).toMatchObject({
      state: "indeterminate",
      reason: expect.stringContaining("cannot be verified"),
    });
    expect(acquireProcessLock(unverified, {}, strict).acquired).toBe(false);
  });

  test("judged by pid where the policy allows: an unverified holder is as alive as its pid", async () => {
    const file = newLock();
    plant(file, holderFor(process.pid, { boot_id: null, start_ticks: null }));
    expect(stateOf(file, byPid)).toBe("active");
    plant(file, holderFor(await deadPid(), { boot_id: null, start_ticks: null }));
    expect(stateOf(file, byPid)).toBe("stale");
  });

  test("a stale lock is moved aside or removed as the policy says", () => {
    const kept = newLock();
    plant(kept, holderFor(process.pid, { start_ticks: "1", lock_id: "old" }));
    expect(acquireProcessLock(kept, {}, strict).acquired).toBe(true);
    const dir = join(kept, "..");
    const aside = readdirSync(dir).filter((name) => name.startsWith("x.lock.stale."));
    expect(aside).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dir, aside[0] as string), "utf8")).lock_id).toBe("old");

    const removed = newLock();
    plant(removed, holderFor(process.pid, { start_ticks: "1" }));
    expect(acquireProcessLock(removed, {}, byPid).acquired).toBe(true);
    expect(readdirSync(join(removed, ".."))).toEqual(["x.lock"]);
  });

  test("an unreadable lock file is held while young and stale once old", () => {
    const file = newLock();
    writeFileSync(file, "{half");
    expect(stateOf(file)).toBe("active");
    expect(acquireProcessLock(file, {}, strict).acquired).toBe(false);
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(file, old, old);
    expect(stateOf(file)).toBe("stale");
    expect(acquireProcessLock(file, {}, strict).acquired).toBe(true);
  });

  test("the holder records identity and its own fields; only its own acquisition releases it", () => {
    const file = newLock();
    const first = acquireProcessLock(file, { role: "light" }, byPid);
    if (!first.acquired) throw new Error("expected the lock");
    expect(readLockHolder<{ role: string }>(file)).toEqual({
      role: "light",
      lock_id: first.holder.lock_id,
      pid: process.pid,
      start_ticks: identityOf(process.pid).startTicks,
      boot_id: currentBootId(),
      host: HOST,
      acquired_at: first.holder.acquired_at,
    });
    // The same process asking again is refused: it holds the lock already.
    expect(acquireProcessLock(file, {}, byPid)).toMatchObject({ acquired: false, state: "active" });
    releaseProcessLock(file, "someone-else");
    expect(stateOf(file, byPid)).toBe("active");
    first.release();
    expect(stateOf(file, byPid)).toBe("absent");
  });
});

// A racer reads lock paths from stdin, one a line, tries each as soon as it arrives and never releases what it got.
const RACER = `
import { acquireProcessLock } from ${JSON.stringify(join(repoRoot, "app/agent_computer/src/local/process-lock.ts"))};
const policy = { host: "host-under-test", unverified: "indeterminate", keepStale: true };
console.log("ready");
let pending = "";
for await (const chunk of process.stdin) {
  pending += chunk;
  for (let end = pending.indexOf("\\n"); end >= 0; end = pending.indexOf("\\n")) {
    const file = pending.slice(0, end);
    pending = pending.slice(end + 1);
    console.log(JSON.stringify({ file, acquired: acquireProcessLock(file, {}, policy).acquired }));
  }
}
`;

/** Collects a racer's stdout lines, so the test can wait for the next one. */
const linesOf = (child: ResultPromise) => {
  const lines: string[] = [];
  let text = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n")) {
      lines.push(text.slice(0, end));
      text = text.slice(end + 1);
    }
  });
  return lines;
};

describe.runIf(currentBootId() !== null)("process lock across processes", () => {
  test("processes taking over one stale lock at the same moment: exactly one gets it, every round", async () => {
    const root = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "race-"));
    const script = join(root, "racer.ts");
    writeFileSync(script, RACER);
    const bun = join(repoRoot, "node_modules", ".bin", "bun");
    const racers = Array.from({ length: 4 }, () => execa(bun, [script], { stdin: "pipe", reject: false }));
    const outputs = racers.map(linesOf);
    const dead = await deadPid();
    try {
      await pollUntil(() => (outputs.every((lines) => lines.length >= 1) ? true : undefined), {
        timeoutMs: 30_000,
        stepMs: 10,
        what: "every racer to start",
      });
      for (let round = 1; round <= 25; round++) {
        const dir = join(root, `round-${round}`);
        mkdirSync(dir);
        const file = join(dir, "x.lock");
        plant(file, holderFor(dead, { lock_id: "dead" }));
        for (const racer of racers) racer.stdin?.write(`${file}\n`);
        await pollUntil(() => (outputs.every((lines) => lines.length > round) ? true : undefined), {
          timeoutMs: 30_000,
          stepMs: 5,
          what: `every racer to try round ${round}`,
        });
        const results = outputs.map((lines) => JSON.parse(lines[round] as string) as { file: string; acquired: boolean });
        expect(
          results.filter((r) => r.acquired),
          `round ${round}`,
        ).toHaveLength(1);
        expect(racers.map((r) => r.pid)).toContain(readLockHolder(file)?.pid);
        expect(
          readdirSync(dir).filter((name) => name.startsWith("x.lock.stale.")),
          `round ${round}`,
        ).toHaveLength(1);
      }
    } finally {
      for (const racer of racers) racer.stdin?.end();
      await Promise.all(racers);
    }
  });
});
