// Bad input for every flag: exit 2, a message naming the flag, and a store that is byte-for-byte unchanged. Rejections
// the front end makes (commander + zod, before any command runs) are checked in process; the process cases are the
// ones a command finds while running (unreadable files) plus one of each kind for the whole-process shape.
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { parseArgv } from "../../app/agent_computer/src/cli/kernel/front.ts";
import { AppError } from "../../app/agent_computer/src/errors.ts";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { runBin } from "../helpers/bin.ts";
import { loadBinary } from "../helpers/registry.ts";

const home = mkdtempSync(join(tmpdir(), "ac-bad-"));
const env = { AGENT_COMPUTER_HOME: home };
let alice: TestAgent;

const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[full] = createHash("sha256").update(readFileSync(full)).digest("hex");
    }
  };
  walk(dir);
  return out;
};

beforeAll(async () => {
  const tokens = mkdtempSync(join(tmpdir(), "ac-bad-tokens-"));
  alice = await checkInAgent(env, tokens, "alice");
  await checkInAgent(env, tokens, "bob");
  writeFileSync(join(tokens, "empty"), "");
});

const A = () => ["--agent-id", "alice", "--token-file", "/tokens/alice"];
const rejected: [string, () => string[], string][] = [
  ["agent-checkin-cli", () => ["--confirm"], "--agent-id"],
  ["agent-checkin-cli", () => ["--agent-id", "bad name!", "--confirm"], "--agent-id"],
  ["agent-checkin-cli", () => ["--agent-id", "x".repeat(65), "--confirm"], "--agent-id"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--ttl-seconds", "59", "--confirm"], "--ttl-seconds"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--ttl-seconds", "86401", "--confirm"], "--ttl-seconds"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--ttl-seconds", "soon", "--confirm"], "--ttl-seconds"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--role", "", "--confirm"], "--role"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--repo", "a\nb", "--confirm"], "--repo"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--caps", "has space", "--confirm"], "--caps"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--status", "two\nlines", "--confirm"], "--status"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--herdr-pane", "$(rm -rf)", "--confirm"], "--herdr-pane"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--confirm", "--bogus"], "--bogus"],
  ["agent-inbox-cli", () => [...A(), "--limit", "0"], "--limit"],
  ["agent-inbox-cli", () => [...A(), "--limit", "101"], "--limit"],
  ["agent-inbox-cli", () => [...A(), "--limit", "1.5"], "--limit"],
  ["agent-inbox-cli", () => [...A(), "--wake-token", "ABCDEF0123456789"], "--wake-token"],
  ["agent-inbox-cli", () => ["--limit", "5"], "--agent-id"],
  ["agent-inbox-cli", () => [...A(), "extra-argument"], "extra-argument"],
  ["agent-ack-cli", () => A(), "--message-id"],
  ["agent-ack-cli", () => [...A(), "--up-to-seq", "3", "--message-id", "msg_0123456789abcdef0123456789abcdef"], "--message-id"],
  ["agent-ack-cli", () => [...A(), "--message-id", "not-an-id"], "--message-id"],
  ["agent-ack-cli", () => [...A(), "--up-to-seq", "0"], "--up-to-seq"],
  ["agent-send-cli", () => ["--token-file", "/tokens/alice", "--to", "bob", "--body", "x"], "--agent-id"],
  ["agent-send-cli", () => ["--from", "alice", "--body", "x"], "--to"],
  ["agent-send-cli", () => ["--from", "alice", "--to", "bob", "--broadcast", "--body", "x"], "--to"],
  ["agent-send-cli", () => ["--from", "alice", "--to", "bob", "--role", "builder", "--body", "x"], "--role"],
  ["agent-send-cli", () => ["--from", "alice", "--to", "bad name", "--body", "x"], "--to"],
  ["agent-send-cli", () => ["--from", "alice", "--to", "bob", "--body", ""], "--body"],
  ["agent-send-cli", () => ["--from", "alice", "--to", "bob", "--body", "x".repeat(65_537)], "--body"],
  ["agent-send-cli", () => ["--from", "alice", "--to", "bob", "--body", "x", "--body-file", "-"], "--body"],
  ["agent-send-cli", () => ["--from", "alice", "--to", "bob", "--body", "x", "--thread", "a b"], "--thread"],
  [
    "agent-send-cli",
    () => ["--from", "alice", "--to", "bob", "--body", "x", "--idempotency-key", "has space"],
    "--idempotency-key",
  ],
  ["agent-send-cli", () => ["--from", "alice", "--agent-id", "bob", "--to", "bob", "--body", "x"], "--agent-id"],
  ["agent-sent-cli", () => [...A(), "--limit", "0"], "--limit"],
  ["agent-sent-cli", () => [...A(), "--limit", "101"], "--limit"],
  ["agents-list-cli", () => ["--view", "grid"], "--view"],
  ["agents-list-cli", () => ["--agent-id", "bad id!"], "--agent-id"],
  ...(
    [
      [["add", ...A()], "--url"],
      [["add", ...A(), "--url", "not a url"], "--url"],
      [["add", ...A(), "--url", "ftp://hooks.example.com/x"], "--url"],
      [["add", ...A(), "--url", "https://user:pw@hooks.example.com/x"], "--url"],
      [["add", ...A(), "--url", "https://hooks.example.com/x#frag"], "--url"],
      [["add", ...A(), "--url", "http://127.0.0.1:9000/hook"], "--url"],
      [["add", ...A(), "--url", "http://169.254.169.254/latest"], "--url"],
      [["add", ...A(), "--url", "http://[::1]/hook"], "--url"],
      [["add", ...A(), "--url", "http://10.1.2.3/hook"], "--url"],
      [["add", ...A(), "--url", "http://api.localhost/hook"], "--url"],
      [["add", ...A(), "--url", `https://hooks.example.com/${"x".repeat(2048)}`], "--url"],
      [["add", ...A(), "--url", "https://hooks.example.com/x", "--events", "message,mail"], "--events"],
      [["remove", ...A(), "--endpoint-id", "hook_123"], "--endpoint-id"],
      [["enable", ...A()], "--endpoint-id"],
      [["deliveries", ...A(), "--limit", "0"], "--limit"],
      [["deliveries", ...A(), "--limit", "501"], "--limit"],
    ] as const
  ).map(([args, flag]): [string, () => string[], string] => ["agent-webhook-cli", () => [...args], flag]),
  ["agent-computer-worker", () => ["--once", "--webhook-backoff", "5x"], "--webhook-backoff"],
  ["agent-computer-worker", () => ["--once", "--webhook-backoff", "5s,,1m"], "--webhook-backoff"],
  ["agent-computer-worker", () => ["--once", "--webhook-backoff", "8d"], "--webhook-backoff"],
  ["agent-computer-worker", () => ["--once", "--webhook-disable-after", "0"], "--webhook-disable-after"],
  ["agent-computer-worker", () => ["--once", "--webhook-timeout-seconds", "0"], "--webhook-timeout-seconds"],
  ["agent-computer-worker", () => ["--once", "--webhook-retention-days", "0"], "--webhook-retention-days"],
  ["agent-computer-worker", () => ["--once", "--webhook-retention-days", "1.5"], "--webhook-retention-days"],
];

describe("the front end rejects bad input before any command runs", () => {
  test.each(rejected.map(([bin, args, flag]) => [`${bin} ${flag}`, bin, args, flag] as const))(
    "%s",
    async (_label, bin, args, flag) => {
      const binary = await loadBinary(bin);
      const error = await parseArgv(binary, args()).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("INVALID_INPUT");
      expect((error as AppError).message).toContain(flag);
    },
  );
});

const spawned: [string, () => string[], string][] = [
  [
    "agent-webhook-cli",
    () => ["add", "--agent-id", "alice", "--token-file", alice.tokenFile, "--url", "http://10.0.0.1/x"],
    "--url",
  ],
  [
    "agent-webhook-cli",
    () => [
      "add",
      "--agent-id",
      "alice",
      "--token-file",
      alice.tokenFile,
      "--url",
      "https://hooks.example.com/x",
      "--events",
      "nope",
    ],
    "--events",
  ],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--confirm", "--token-file", "/nonexistent/token"], "--token-file"],
  ["agent-send-cli", () => ["--from", "alice", "--to", "bob", "--body-file", "/nonexistent/body"], "--body-file"],
  ["agent-inbox-cli", () => ["--agent-id", "alice", "--token-file", alice.tokenFile, "--limit", "0"], "--limit"],
  ["agent-checkin-cli", () => ["--agent-id", "alice", "--confirm", "--bogus"], "--bogus"],
];

describe("bad input changes nothing", () => {
  test.each(spawned.map(([bin, args, flag]) => [`${bin} ${flag}`, bin, args, flag] as const))(
    "%s",
    async (_label, bin, args, flag) => {
      const before = snapshot(home);
      const r = await runBin(bin, args(), { env });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(flag);
      // A binary with subcommands points to the subcommand's contract.
      expect(r.stderr).toMatch(new RegExp(`see ${bin}( ${args()[0]})? --help`));
      expect(r.stderr.trim().split("\n").length, "a short usage, not the contract").toBeLessThanOrEqual(4);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe("");
      expect(snapshot(home)).toEqual(before);
    },
  );

  test("with --json the error is one envelope on stderr, with a hint", async () => {
    const r = await runBin("agent-inbox-cli", ["--agent-id", "alice", "--limit", "0", "--json"], { env });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: {
        code: "INVALID_INPUT",
        message: "--limit: must be >= 1 (got 0)",
        hint: "usage: agent-inbox-cli --agent-id <id> [options]; see agent-inbox-cli --help",
      },
    });
  });

  test("with --json every error carries a hint, a usage error found while running too", async () => {
    const r = await runBin("agent-send-cli", ["--from", "alice", "--to", "bob", "--body-file", "/nonexistent/body", "--json"], {
      env,
    });
    expect(r.exitCode).toBe(2);
    const { error } = JSON.parse(r.stderr) as { error: Record<string, string> };
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.hint).toContain("see agent-send-cli --help");
  });
});
