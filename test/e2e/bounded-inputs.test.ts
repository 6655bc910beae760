// Every file or stdin input a flag names is read with its limit enforced while reading: /dev/zero and an endless
// pipe end in a clean INVALID_INPUT naming the flag, having consumed no more than the limit plus the pipe's buffers
// (before, `--body-file /dev/zero` grew about 1 GB/s and never ended). The table must name every file flag of every
// command, so a new one is not forgotten.
import { closeSync, constants, mkdtempSync, openSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { execa } from "execa";
import { beforeAll, describe, expect, test } from "vitest";
import { MAX_TOKEN_FILE_BYTES } from "../../app/agent_computer/src/cli/kernel/credential.ts";
import { commandFlags } from "../../app/agent_computer/src/cli/kernel/flags.ts";
import { MAX_BODY_BYTES } from "../../app/agent_computer/src/cli/mesh/send-body.ts";
import { MAX_ENTRIES, MAX_VALUE_BYTES } from "../../app/agent_computer/src/domain/automation/worker-env.ts";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { binaryForm, binPath, runBin } from "../helpers/bin.ts";
import { allCommands } from "../helpers/registry.ts";

const home = mkdtempSync(join(tmpdir(), "ac-bounded-"));
const env = { AGENT_COMPUTER_HOME: home };
let alice: TestAgent;

beforeAll(async () => {
  const tokens = mkdtempSync(join(tmpdir(), "ac-bounded-tokens-"));
  alice = await checkInAgent(env, tokens, "alice");
  await checkInAgent(env, tokens, "bob");
});

/**
 * What may be taken beyond the limit: the kernel's pipe buffer, this side's stream buffer and the chunks Bun's stdin
 * reads ahead (about 1 MiB seen). Reading the whole input, as before, never ends.
 */
const SLACK = 4 * 1024 * 1024;

interface Reader {
  /** The schema key of the flag, e.g. "bodyFile". */
  key: string;
  binary: string;
  flag: string;
  args: (path: string) => string[];
  limit: number;
  /** Whether "-" reads stdin. */
  stdin: boolean;
}

const A = () => ["--agent-id", "alice", "--token-file", alice.tokenFile];
const JOB = "job_0193a1b2c3d4e5f60718293a4b5c6d7e";

const READERS: Reader[] = [
  {
    key: "bodyFile",
    binary: "agent-send-cli",
    flag: "--body-file",
    args: (p) => [...A(), "--to", "bob", "--body-file", p],
    limit: MAX_BODY_BYTES,
    stdin: true,
  },
  {
    key: "dataFile",
    binary: "run-automation-job-cli",
    flag: "--data-file",
    args: (p) => [...A(), "--job-id", JOB, "--data-file", p],
    limit: 262_144,
    stdin: true,
  },
  {
    key: "tokenFile",
    binary: "agent-inbox-cli",
    flag: "--token-file",
    args: (p) => ["--agent-id", "alice", "--token-file", p],
    limit: MAX_TOKEN_FILE_BYTES,
    stdin: true,
  },
  {
    key: "tokenFile",
    binary: "register-agent-cli",
    flag: "--token-file",
    args: (p) => ["--agent-id", "carol", "--role", "r", "--capabilities", "c", "--token-file", p],
    limit: MAX_TOKEN_FILE_BYTES,
    stdin: true,
  },
  {
    key: "tokenFile",
    binary: "agent-checkin-cli",
    flag: "--token-file",
    args: (p) => ["--agent-id", "dave", "--confirm", "--token-file", p],
    limit: MAX_TOKEN_FILE_BYTES,
    stdin: true,
  },
  {
    key: "recoveryTokenFile",
    binary: "register-agent-cli",
    flag: "--recovery-token-file",
    args: (p) => ["--agent-id", "alice", "--role", "r", "--capabilities", "c", "--recovery-token-file", p],
    limit: MAX_TOKEN_FILE_BYTES,
    stdin: true,
  },
  {
    key: "file",
    binary: "worker-env-cli",
    flag: "--file",
    args: (p) => ["set", ...A(), "--file", p],
    limit: MAX_ENTRIES * (MAX_VALUE_BYTES + 256),
    stdin: true,
  },
];

const label = (r: Reader) => `${r.binary} ${r.flag}`;

/** Writes zeros into `stream` as fast as it takes them until it breaks; resolves with how many bytes it took. */
const pumpZeros = (stream: Writable, done: Promise<unknown>): Promise<number> =>
  new Promise((resolve) => {
    const chunk = Buffer.alloc(65_536);
    let taken = 0;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      resolve(taken);
    };
    stream.on("error", end);
    stream.on("close", end);
    void done.finally(end);
    const more = () => {
      while (!ended) {
        const ok = stream.write(chunk, () => {});
        taken += chunk.length;
        if (!ok) {
          stream.once("drain", more);
          return;
        }
      }
    };
    more();
  });

/** A named pipe fed endlessly, as a file path: proves a file is read within its limit too. */
const endlessFifo = async (): Promise<{ path: string; taken: (done: Promise<unknown>) => Promise<number> }> => {
  const path = join(mkdtempSync(join(tmpdir(), "ac-fifo-")), "endless");
  await execa("mkfifo", [path]);
  return {
    path,
    taken: async (done) => {
      const { createWriteStream } = await import("node:fs");
      const stream = createWriteStream(path);
      const taken = pumpZeros(stream, done);
      // A reader that never opened the pipe would leave the writer's open() blocked: open it once, then let go.
      void done.then(() => {
        try {
          closeSync(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK));
        } catch {}
        stream.destroy();
      });
      return taken;
    },
  };
};

const expectLimitError = (r: Reader, stderr: string, where: string) => {
  const error = (JSON.parse(stderr) as { error: { code: string; message: string } }).error;
  expect(error.code).toBe("INVALID_INPUT");
  expect(error.message.startsWith(`${r.flag}: `), error.message).toBe(true);
  expect(error.message).toContain(where);
};

describe(`bounded file and stdin inputs [${binaryForm}]`, () => {
  test("the table names every file flag of every command", async () => {
    const fileKeys = new Set<string>();
    for (const c of await allCommands()) {
      for (const flag of commandFlags(c.def)) if (/(^f|F)ile$/.test(flag.key)) fileKeys.add(flag.key);
    }
    expect([...fileKeys].sort()).toEqual([...new Set(READERS.map((r) => r.key))].sort());
  });

  test.each(READERS.map((r) => [label(r), r] as const))("%s /dev/zero: INVALID_INPUT naming the flag", async (_, r) => {
    const result = await runBin(r.binary, [...r.args("/dev/zero"), "--json"], { env });
    expect(result.exitCode, result.stderr).toBe(2);
    expectLimitError(r, result.stderr, "/dev/zero");
  });

  test.each(READERS.filter((r) => r.stdin).map((r) => [label(r), r] as const))(
    "%s - with an endless pipe on stdin: stops within the limit",
    async (_, r) => {
      const child = execa(binPath(r.binary), [...r.args("-"), "--json"], {
        env: { FORCE_COLOR: "0", NO_COLOR: "1", AGENT_COMPUTER_FORM: binaryForm, ...env },
        reject: false,
        timeout: 60_000,
      });
      const taken = await pumpZeros(child.stdin as Writable, child);
      const result = await child;
      expect(result.exitCode, String(result.stderr)).toBe(2);
      expectLimitError(r, String(result.stderr), "stdin");
      expect(taken).toBeLessThanOrEqual(r.limit + SLACK);
    },
  );

  test.each(READERS.map((r) => [label(r), r] as const))("%s on an endless named pipe: stops within the limit", async (_, r) => {
    const fifo = await endlessFifo();
    const child = execa(binPath(r.binary), [...r.args(fifo.path), "--json"], {
      env: { FORCE_COLOR: "0", NO_COLOR: "1", AGENT_COMPUTER_FORM: binaryForm, ...env },
      reject: false,
      timeout: 60_000,
    });
    const taken = await fifo.taken(child);
    const result = await child;
    expect(result.exitCode, String(result.stderr)).toBe(2);
    expectLimitError(r, String(result.stderr), fifo.path);
    expect(taken).toBeLessThanOrEqual(r.limit + SLACK);
  });
});

describe("job directories are resolved, never read", () => {
  test("a main.ts that is /dev/zero or a named pipe is refused without reading it, and no job is stored", async () => {
    for (const make of [
      (dir: string) => symlinkSync("/dev/zero", join(dir, "main.ts")),
      (dir: string) => execa("mkfifo", [join(dir, "main.ts")]),
    ]) {
      const dir = mkdtempSync(join(tmpdir(), "ac-bounded-job-"));
      await make(dir);
      const r = await runBin("create-automation-job-cli", [...A(), "--dir", dir, "--label", "endless", "--json"], { env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: "INVALID_INPUT" } });
      expect(r.stderr).toContain("is not a file");
    }
    const listed = await runBin("list-automation-jobs-cli", [...A(), "--json"], { env });
    expect(listed.json<{ jobs: unknown[] }>().jobs).toEqual([]);
  });
});
