// What the binaries print for a person to run next (hints, `next` lists, inspect and acknowledge lines, notes)
// works when pasted: each line holds the real values and every required flag, parses through its binary's own
// parser (in process) and, run as a real process, exits 0.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { type BinResult, runBin } from "../helpers/bin.ts";
import { parseCommandLine } from "../helpers/parse-line.ts";
import { shellWords } from "../helpers/shell-words.ts";

const root = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "pasted-"));
const env: Record<string, string> = {
  AGENT_COMPUTER_HOME: join(root, "state"),
  AGENT_COMPUTER_RATE_REGISTER_PER_NAME: "off",
  AGENT_COMPUTER_RATE_REGISTER_PER_HOST: "off",
  AGENT_COMPUTER_RATE_SEND_PER_NAME: "off",
  AGENT_COMPUTER_RATE_SEND_PER_HOST: "off",
  AGENT_COMPUTER_RATE_DELIVER_PER_NAME: "off",
  AGENT_COMPUTER_RATE_DELIVER_PER_HOST: "off",
};
const tokenFile = (agent: string) => join(root, `${agent}.token`);

/** A printed line as a person pastes it: split as the shell would, then run from `cwd`. */
const runLine = (line: string, cwd = root): Promise<BinResult> => {
  const [name = "", ...args] = shellWords(line);
  return runBin(name, args, { env, cwd });
};

/** The line parses through its binary and, run, exits 0. */
const worksPasted = async (line: string, cwd = root): Promise<BinResult> => {
  await expect(parseCommandLine(line)).resolves.toBeDefined();
  const result = await runLine(line, cwd);
  expect(result.exitCode, `${line}\n${result.stderr}`).toBe(0);
  return result;
};

const errorOf = (r: BinResult) => (JSON.parse(r.stderr) as { error: { code: string; hint?: string } }).error;

const checkIn = async (agent: string, extra: string[] = []) => {
  const r = await runBin("agent-checkin-cli", ["--agent-id", agent, "--confirm", "--token-file", tokenFile(agent), ...extra], {
    env,
  });
  expect(r.exitCode, r.stderr).toBe(0);
};

beforeAll(async () => {
  await checkIn("alice");
  await checkIn("carol", ["--caps", "review"]);
});

describe("automation: next lists, inspect lines and hints", () => {
  let jobId = "";
  let nextLines: string[] = [];

  beforeAll(async () => {
    const dir = join(root, "job");
    mkdirSync(dir);
    writeFileSync(join(dir, "main.ts"), "console.log('hi');\n");
    const created = await runBin(
      "create-automation-job-cli",
      ["--agent-id", "alice", "--token-file", tokenFile("alice"), "--dir", dir, "--label", "digest it's", "--json"],
      { env },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    ({ id: jobId, next: nextLines } = created.json<{ id: string; next: string[] }>());
  });

  test("create-automation-job-cli's next: one command per line, each with the job id and owner, each exits 0", async () => {
    expect(nextLines.map((l) => shellWords(l)[0])).toEqual([
      "run-automation-job-cli",
      "show-automation-job-cli",
      "create-checkback-cli",
      "create-cron-schedule-cli",
      "create-webhook-cli",
    ]);
    for (const line of nextLines) {
      expect(line).toContain(jobId);
      expect(line).toContain(`--agent-id alice --token-file ${tokenFile("alice")}`);
      await worksPasted(line);
    }
  });

  test("run-automation-job-cli's inspect line (text) and its TIMEOUT hint (--json) carry --agent-id and run", async () => {
    const queued = await runBin("run-automation-job-cli", ["--agent-id", "alice", "--job-id", jobId], { env });
    expect(queued.exitCode, queued.stderr).toBe(0);
    const inspect = queued.stdout.match(/inspect: (.+)/)?.[1] ?? "";
    expect(inspect).toMatch(/^show-automation-job-cli --agent-id alice --job-id job_[0-9a-f]{32} --run-id run_[0-9a-f]{32}$/);
    expect((await worksPasted(inspect)).stdout).toContain(inspect.split(" ").at(-1));

    const timedOut = await runBin(
      "run-automation-job-cli",
      ["--agent-id", "alice", "--job-id", jobId, "--wait-seconds", "1", "--json"],
      {
        env,
      },
    );
    expect(timedOut.exitCode).toBe(7);
    const hint = errorOf(timedOut).hint ?? "";
    const line = hint.match(/inspect it later: (.+)$/)?.[1] ?? "";
    expect(line).toMatch(/^show-automation-job-cli --agent-id alice --job-id job_/);
    await worksPasted(line);
  });

  test("list-automation-jobs-cli prints a show line per job that runs", async () => {
    const listed = await runBin("list-automation-jobs-cli", ["--agent-id", "alice"], { env });
    const line = listed.stdout.match(/show: (.+)/)?.[1] ?? "";
    expect(line).toBe(`show-automation-job-cli --agent-id alice --job-id ${jobId}`);
    await worksPasted(line);
  });

  test.each([
    ["show-automation-job-cli", ["--job-id", `job_${"0".repeat(32)}`], "list-automation-jobs-cli --agent-id alice"],
    ["cancel-trigger-cli", ["--trigger-id", `cron_${"0".repeat(32)}`], "list-triggers-cli --agent-id alice"],
    ["agent-task-cli", ["accept", "--task-id", `task_${"0".repeat(32)}`], "agent-task-cli list --agent-id alice"],
  ])("%s NOT_FOUND hints a command for alice that runs", async (binary, args, expected) => {
    const [first, ...more] = args as string[];
    const words =
      binary === "agent-task-cli" ? [first as string, "--agent-id", "alice", ...more] : ["--agent-id", "alice", ...args];
    const r = await runBin(binary, [...words, "--json"], { env });
    expect(errorOf(r).code).toBe("NOT_FOUND");
    expect(errorOf(r).hint).toContain(expected);
    await worksPasted(expected);
  });
});

describe("mesh and identity: hints and notes", () => {
  test("UNKNOWN_AGENT for a name close to no registered one hints the check-in of that very name", async () => {
    const r = await runBin("agent-inbox-cli", ["--agent-id", "ghost-7", "--json"], { env });
    expect(errorOf(r).code).toBe("UNKNOWN_AGENT");
    expect(errorOf(r).hint).toContain("agent-checkin-cli --agent-id ghost-7 --confirm");
    await worksPasted("agent-checkin-cli --agent-id ghost-7 --confirm");
  });

  test("UNKNOWN_AGENT for a typo of registered names suggests them from the directory, never registering the typo", async () => {
    for (const [binary, args] of [
      ["agent-inbox-cli", ["--agent-id", "alcie"]],
      ["agent-identity-cli", ["show", "--agent-id", "alcie"]],
      ["agent-sent-cli", ["--agent-id", "alcie"]],
    ] as const) {
      const r = await runBin(binary, [...args, "--json"], { env: { ...env, RELAY_AGENT_TOKEN: "act_x" } });
      expect(r.exitCode, r.stderr).toBe(5);
      const error = errorOf(r) as { code: string; hint?: string; did_you_mean?: string[] };
      expect(error).toMatchObject({ code: "UNKNOWN_AGENT", did_you_mean: ["alice"] });
      expect(error.hint).toMatch(/^did you mean alice\? /);
      expect(error.hint).not.toContain("agent-checkin-cli");
    }
    const send = await runBin(
      "agent-send-cli",
      ["--agent-id", "alice", "--token-file", tokenFile("alice"), "--to", "carlo", "--body", "hi", "--json"],
      { env },
    );
    expect(send.exitCode, send.stderr).toBe(5);
    expect(errorOf(send)).toMatchObject({ code: "UNKNOWN_AGENT", did_you_mean: ["carol"] });
    const text = await runBin("agent-inbox-cli", ["--agent-id", "caro1"], { env });
    expect(text.stderr).toContain("hint: did you mean carol? (agents-list-cli --include-stale lists the registered names)");
    expect(text.stderr).not.toContain("--agent-id caro1");
  });

  test("WAKE_TOKEN_INVALID hints the plain inbox read of the same agent", async () => {
    const r = await runBin("agent-inbox-cli", ["--agent-id", "carol", "--wake-token", "0123456789abcdef", "--json"], { env });
    expect(errorOf(r).code).toBe("WAKE_TOKEN_INVALID");
    expect(errorOf(r).hint).toContain("agent-inbox-cli --agent-id carol)");
    await worksPasted("agent-inbox-cli --agent-id carol");
  });

  test("a task notice tells its assignee the list, accept and reject commands; the inbox the ack command", async () => {
    const posted = await runBin(
      "agent-task-cli",
      ["post", "--agent-id", "alice", "--title", "Review PR 12", "--body", "see thread", "--require-cap", "review", "--json"],
      { env },
    );
    expect(posted.exitCode, posted.stderr).toBe(0);
    const taskId = posted.json<{ task: { id: string; assignee: string } }>().task.id;
    const inbox = await runBin("agent-inbox-cli", ["--agent-id", "carol", "--token-file", tokenFile("carol")], { env });
    const body = inbox.stdout.replaceAll("\n  | ", " ");
    const reject = `agent-task-cli reject --agent-id carol --task-id ${taskId} --reason why`;
    const accept = `agent-task-cli accept --agent-id carol --task-id ${taskId}`;
    expect(body).toContain("agent-task-cli list --agent-id carol;");
    expect(body).toContain(`${accept},`);
    expect(body).toContain(reject);
    await expect(parseCommandLine(reject)).resolves.toMatchObject({ command: "agent-task-cli reject" });
    await worksPasted("agent-task-cli list --agent-id carol");
    await worksPasted(accept);
    const ack = inbox.stdout.match(/acknowledge with: (.+)/)?.[1] ?? "";
    expect(ack).toMatch(/^agent-ack-cli --agent-id carol --token-file \S+ --up-to-seq \d+$/);
    await worksPasted(ack);
  });

  test("re-registering with other capabilities: the note's expand-capabilities line adds exactly the missing ones", async () => {
    const reg = (caps: string) =>
      runBin(
        "register-agent-cli",
        // The test process plays bob's process, so bob's second registration is its holder renewing.
        ["--agent-id", "bob", "--role", "builder", "--capabilities", caps, "--agent-pid", String(process.pid), "--json"],
        { env },
      );
    expect((await reg("ts")).exitCode).toBe(0);
    const again = (await reg("ts,sql")).json<{ capabilities_note: string }>();
    const line = again.capabilities_note.match(/To add sql: (.+)$/)?.[1] ?? "";
    expect(line).toBe("agent-identity-cli expand-capabilities --agent-id bob --add sql");
    await worksPasted(line);
    const noop = await runBin("agent-identity-cli", ["expand-capabilities", "--agent-id", "bob", "--add", "sql", "--json"], {
      env,
    });
    expect(errorOf(noop).code).toBe("NO_OP_EXPANSION");
    expect(errorOf(noop).hint).toContain("agent-identity-cli show --agent-id bob lists them");
    await worksPasted("agent-identity-cli show --agent-id bob");
  });

  test("FORCE_PRECONDITION_FAILED hints the show command of that name", async () => {
    const r = await runBin(
      "register-agent-cli",
      [
        "--agent-id",
        "bob",
        "--role",
        "builder",
        "--capabilities",
        "ts",
        "--force",
        "--expected-session-id",
        `ses_${"0".repeat(32)}`,
        "--json",
      ],
      { env },
    );
    expect(errorOf(r).code).toBe("FORCE_PRECONDITION_FAILED");
    expect(errorOf(r).hint).toContain("agent-identity-cli show --agent-id bob)");
  });

  test("revoke-token --issue-recovery: the note's register line, with the token saved where it says, recovers", async () => {
    const revoked = await runBin("agent-identity-cli", ["revoke-token", "--agent-id", "bob", "--issue-recovery", "--json"], {
      env,
    });
    expect(revoked.exitCode, revoked.stderr).toBe(0);
    const { recovery_token, recovery_note } = revoked.json<{ recovery_token: string; recovery_note: string }>();
    const line = recovery_note.match(/run (register-agent-cli .+) to get/)?.[1] ?? "";
    expect(line).toBe(
      "register-agent-cli --agent-id bob --role builder --capabilities ts,sql --recovery-token-file bob.recovery",
    );
    const cwd = mkdtempSync(join(root, "recover-"));
    writeFileSync(join(cwd, "bob.recovery"), recovery_token, { mode: 0o600 });
    expect((await worksPasted(line, cwd)).stdout).toContain("recovery completed");
  });
});
