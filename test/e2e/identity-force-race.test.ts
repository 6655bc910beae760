// Two racing --force takeovers of one name from separate OS processes: exactly one wins each round, the other gets
// FORCE_PRECONDITION_FAILED, on every store.
//
// 500 rounds of spawning the real binary twice cost about 2 x 500 Bun start-ups per store (over three minutes on
// a 2-core machine for both stores), so the 500 rounds run in two long-lived worker processes that each execute
// the real register-agent-cli command (argv parsing, the service, the store) once per round, released together
// by a shared start time; a shorter race of the real binaries themselves checks the same through bin/.

import { join } from "node:path";
import { createInterface } from "node:readline";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { repoRoot, runBin } from "../helpers/bin.ts";
import { errorOf, identityEnv, registered } from "../helpers/identity.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const IN_PROCESS_ROUNDS = 500;
const BINARY_ROUNDS = 25;
const WORKER = join(repoRoot, "test", "fixtures", "identity", "race-worker.ts");
const BUN = join(repoRoot, "node_modules", "bun", "bin", "bun.exe");

interface Outcome {
  round: number;
  ok: boolean;
  session_id?: string;
  code?: string;
}

/** A worker process and a way to await its next JSON line. */
const startWorker = (env: Record<string, string>, name: string) => {
  const child = execa(BUN, [WORKER, name], { env, stdin: "pipe", stdout: "pipe", stderr: "pipe", reject: false });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async (): Promise<Outcome & { ready?: boolean }> => {
    const line = await lines.next();
    if (line.done) throw new Error(`race worker ended: ${(await child).stderr}`);
    return JSON.parse(line.value as string);
  };
  return {
    next,
    send: (text: string) => child.stdin?.write(`${text}\n`),
    stop: async () => {
      child.stdin?.end();
      await child;
    },
  };
};

const oneWinner = (outcomes: { ok: boolean; code?: string | undefined; session_id?: string | undefined }[]): string => {
  const winners = outcomes.filter((o) => o.ok);
  expect(winners, JSON.stringify(outcomes)).toHaveLength(1);
  expect(outcomes.filter((o) => !o.ok).map((o) => o.code)).toEqual(["FORCE_PRECONDITION_FAILED"]);
  return winners[0]?.session_id as string;
};

describe.each(storeNames)("racing --force takeovers on %s", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  const openSessions = async (name: string) =>
    (await target.sql("SELECT id FROM sessions WHERE agent_name = $1 AND ended_at IS NULL", [name])).map((r) => r.id);
  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = identityEnv(target);
  });
  afterAll(() => target.dispose());

  test(`${IN_PROCESS_ROUNDS} rounds between two worker processes: exactly one winner per round`, {
    timeout: 240_000,
  }, async () => {
    let expected = (await registered(env, "race-inproc")).agent.session_id as string;
    const workers = [
      startWorker({ ...process.env, ...env } as Record<string, string>, "race-inproc"),
      startWorker({ ...process.env, ...env } as Record<string, string>, "race-inproc"),
    ];
    try {
      for (const worker of workers) expect((await worker.next()).ready).toBe(true);
      const winners = new Set<string>();
      for (let round = 1; round <= IN_PROCESS_ROUNDS; round++) {
        const goAt = Date.now() + 5;
        for (const worker of workers) worker.send(`${round} ${expected} ${goAt}`);
        const outcomes = await Promise.all(workers.map((w) => w.next()));
        expect(outcomes.map((o) => o.round)).toEqual([round, round]);
        expected = oneWinner(outcomes);
        winners.add(expected);
      }
      expect(winners.size).toBe(IN_PROCESS_ROUNDS);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
    expect(await openSessions("race-inproc")).toEqual([expected]);
    const [row] = await target.sql("SELECT COUNT(*) AS n FROM sessions WHERE agent_name = $1", ["race-inproc"]);
    expect(Number(row?.n)).toBe(IN_PROCESS_ROUNDS + 1);
  });

  test(`${BINARY_ROUNDS} rounds between two spawned register-agent-cli binaries: exactly one winner per round`, {
    timeout: 120_000,
  }, async () => {
    let expected = (await registered(env, "race-bin")).agent.session_id as string;
    const args = () => [
      "--name",
      "race-bin",
      "--role",
      "builder",
      "--capabilities",
      "ts",
      "--force",
      "--expected-session-id",
      expected,
      "--json",
    ];
    for (let round = 1; round <= BINARY_ROUNDS; round++) {
      const results = await Promise.all([
        runBin("register-agent-cli", args(), { env }),
        runBin("register-agent-cli", args(), { env }),
      ]);
      expected = oneWinner(
        results.map((r) =>
          r.exitCode === 0
            ? { ok: true, session_id: r.json<{ agent: { session_id: string } }>().agent.session_id }
            : { ok: false, code: r.exitCode === 4 ? errorOf(r).code : `exit ${r.exitCode}: ${r.stderr}` },
        ),
      );
    }
    expect(await openSessions("race-bin")).toEqual([expected]);
  });
});
