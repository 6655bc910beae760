// argv → what it asks for, in process, through the real front end (commander) and the same schemas the binaries use:
// coercion, defaults, repeatable flags, dash values, help and version detection, and every kind of usage error.
import { describe, expect, test } from "vitest";
import { type Invocation, parseArgv } from "../../app/agent_computer/src/cli/kernel/front.ts";
import { AppError } from "../../app/agent_computer/src/errors.ts";
import { loadBinary } from "../helpers/registry.ts";

const parse = async (binary: string, argv: string[]): Promise<Invocation> => parseArgv(await loadBinary(binary), argv);

const options = async (binary: string, argv: string[]): Promise<Record<string, unknown>> => {
  const invocation = await parse(binary, argv);
  if (invocation.kind !== "run") throw new Error(`expected a run, got ${JSON.stringify(invocation)}`);
  return invocation.options as Record<string, unknown>;
};

const rejects = async (binary: string, argv: string[]): Promise<string> => {
  try {
    await parse(binary, argv);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("INVALID_INPUT");
    return (error as AppError).message;
  }
  throw new Error("expected a usage error");
};

describe("argv to options", () => {
  test.each([
    // No --limit leaves it unset, so --peek can refuse one; the read applies the documented default (50).
    ["agent-inbox-cli", ["--agent-id", "a"], { agentId: "a", peek: false }],
    ["agent-inbox-cli", ["--agent-id", "a", "--peek"], { agentId: "a", peek: true }],
    ["agent-inbox-cli", ["--agent-id=a", "--limit", "7"], { agentId: "a", limit: 7 }],
    ["agent-inbox-cli", ["--limit=100", "--agent-id", "a"], { agentId: "a", limit: 100 }],
    ["agent-inbox-cli", ["--agent-id", "a", "--json"], { agentId: "a" }],
    ["agent-checkin-cli", ["--agent-id", "a"], { confirm: false }],
    ["agent-checkin-cli", ["--agent-id", "a", "--confirm"], { confirm: true }],
    ["agent-checkin-cli", ["--agent-id", "a", "--caps", "ts, sql", "--caps=go"], { capabilities: ["ts", "sql", "go"] }],
    ["agent-send-cli", ["--from", "a", "--to", "b,c", "--to", "d", "--body", "x"], { to: ["b", "c", "d"] }],
    ["agent-send-cli", ["--from", "a", "--to", "b", "--body=a=b"], { body: "a=b" }],
    ["agent-send-cli", ["--from", "a", "--to", "b", "--body", "-h"], { body: "-h" }],
    ["agent-send-cli", ["--from", "a", "--to", "b", "--body", "-V"], { body: "-V" }],
    ["agent-send-cli", ["--from", "a", "--to", "b", "--body", "--json"], { body: "--json" }],
    ["agent-send-cli", ["--from", "a", "--to", "b", "--body", "-x is a flag name"], { body: "-x is a flag name" }],
    ["agent-send-cli", ["--from", "a", "--to", "b", "--body", "help"], { body: "help" }],
    ["agent-inbox-cli", ["--agent-id", "a", "--limit", "1", "--limit", "9"], { limit: 9 }],
    [
      "herdr-agent-control",
      ["ask-many", "--request", "rev-a=fix x, then y", "--request=rev-b=z"],
      {
        request: [
          { target: "rev-a", message: "fix x, then y" },
          { target: "rev-b", message: "z" },
        ],
      },
    ],
    ["herdr-agent-control", ["ask", "rev-a", "--", "now", "-rf", "-h"], { target: "rev-a", message: "now -rf -h" }],
    ["herdr-lease-cli", ["controller", "renew", "--ttl-seconds", "120"], { ttlSeconds: 120 }],
    [
      "agent-task-cli",
      ["complete", "--agent-id", "a", "--task-id", `task_${"0".repeat(32)}`, "--result", "ok"],
      { result: "ok" },
    ],
  ] as const)("%s %j", async (binary, argv, expected) => {
    expect(await options(binary, [...argv])).toMatchObject(expected);
  });
});

const JOB = `job_${"a".repeat(32)}`;

describe("aliases land on the one key of their concept", () => {
  test.each([
    ["agent-send-cli", ["--from", "a", "--to", "b", "--body", "x"], { agentId: "a" }],
    ["agent-send-cli", ["--agent-id", "a", "--from", "a", "--to", "b", "--body", "x"], { agentId: "a" }],
    [
      "register-agent-cli",
      ["--name", "a", "--role", "r", "--caps", "ts", "--capabilities", "go"],
      { agentId: "a", capabilities: ["ts", "go"] },
    ],
    ["agent-identity-cli", ["show", "--name", "a"], { agentId: "a" }],
    ["agent-checkin-cli", ["--agent-id", "a", "--caps", "ts"], { capabilities: ["ts"] }],
    ["show-automation-job-cli", ["--agent-id", "a", "--id", JOB], { jobId: JOB }],
    ["show-automation-job-cli", ["--agent-id", "a", "--automation-job-id", JOB], { jobId: JOB }],
    ["run-automation-job-cli", ["--agent-id", "a", "--job-id", JOB], { jobId: JOB }],
    ["create-checkback-cli", ["--agent-id", "a", "--in", "5m", "--automation-job-id", JOB], { jobId: JOB }],
    ["cancel-trigger-cli", ["--agent-id", "a", "--id", `chk_${"b".repeat(32)}`], { triggerId: `chk_${"b".repeat(32)}` }],
  ] as const)("%s %j", async (binary, argv, expected) => {
    expect(await options(binary, [...argv])).toMatchObject(expected);
  });

  test("a flag and its alias with different values is INVALID_INPUT naming both", async () => {
    expect(await rejects("agent-send-cli", ["--agent-id", "a", "--from", "b", "--to", "c", "--body", "x"])).toBe(
      "--agent-id and --from are the same flag and differ (got a and b); give one",
    );
  });

  test("an error names the flag as it was typed, alias or not", async () => {
    expect(await rejects("create-checkback-cli", ["--agent-id", "a", "--in", "5m", "--automation-job-id", "job_nope"])).toBe(
      "--automation-job-id: must be an automation job id (job_…) (got job_nope)",
    );
    expect(await rejects("create-checkback-cli", ["--agent-id", "a", "--in", "5m", "--job-id", "job_nope"])).toBe(
      "--job-id: must be an automation job id (job_…) (got job_nope)",
    );
  });

  test("--peek counts only, so a flag about which messages to read is refused beside it, naming that flag", async () => {
    expect(await rejects("agent-inbox-cli", ["--agent-id", "a", "--peek", "--limit", "3"])).toBe(
      "--limit: cannot be combined with --peek",
    );
    expect(await rejects("agent-inbox-cli", ["--agent-id", "a", "--peek", "--wake-token", "0123456789abcdef"])).toMatch(
      /^--wake-token: cannot be combined with --peek/,
    );
  });

  test("did-you-mean offers aliases of this command, and only flags this command has", async () => {
    expect(await rejects("register-agent-cli", ["--nmae", "a"])).toBe("unknown option '--nmae'\n(Did you mean --name?)");
    expect(await rejects("agent-inbox-cli", ["--agent-id", "a", "--frm", "b"])).toBe("unknown option '--frm'");
  });
});

describe("help and version are recognised, except as an option's value", () => {
  test.each([
    ["agent-inbox-cli", ["-h"], undefined],
    ["agent-inbox-cli", ["--help"], undefined],
    ["agent-inbox-cli", ["help"], undefined],
    ["agent-inbox-cli", ["inbox", "--limit", "5", "-h"], undefined],
    ["agent-inbox-cli", ["--nope", "--help"], undefined],
    ["agent-task-cli", ["-h"], undefined],
    ["agent-task-cli", ["help"], undefined],
    ["agent-task-cli", ["help", "post"], "post"],
    ["agent-task-cli", ["post", "--title", "x", "-h"], "post"],
    ["agent-task-cli", ["stray", "post", "-h"], undefined],
    ["herdr-lease-cli", ["help", "controller", "acquire"], "controller acquire"],
    ["herdr-lease-cli", ["controller", "acquire", "--ttl-seconds", "5", "--help"], "controller acquire"],
    ["herdr-lease-cli", ["controller", "-h"], undefined],
    ["herdr-agent-control", ["ask", "-h"], "ask"],
  ] as const)("%s %j is help", async (binary, argv, subcommand) => {
    expect(await parse(binary, [...argv])).toEqual({ kind: "help", subcommand });
  });

  test.each([
    ["agent-inbox-cli", ["--version"]],
    ["agent-inbox-cli", ["-V"]],
    ["agent-task-cli", ["--version"]],
    ["agent-task-cli", ["post", "-V"]],
    ["herdr-lease-cli", ["controller", "acquire", "--version"]],
  ] as const)("%s %j is the version", async (binary, argv) => {
    expect(await parse(binary, [...argv])).toEqual({ kind: "version" });
  });
});

describe("usage errors name what is wrong", () => {
  test.each([
    ["agent-inbox-cli", ["--agent-id", "a", "--limit", "0"], "--limit: must be >= 1 (got 0)"],
    [
      "agent-inbox-cli",
      ["--agent-id", "a", "--limit", "1.5"],
      "--limit: must be a whole number in decimal digits, e.g. 5 (got 1.5)",
    ],
    [
      "agent-inbox-cli",
      ["--agent-id", "a", "--limit", "ten"],
      "--limit: must be a whole number in decimal digits, e.g. 5 (got ten)",
    ],
    ["agent-inbox-cli", ["--limit", "5"], "--agent-id: is required"],
    ["agent-inbox-cli", ["--agent-id"], "--agent-id: needs a value"],
    ["agent-inbox-cli", ["--agent-id", "a", "--nope"], "unknown option '--nope'"],
    ["agent-inbox-cli", ["--agnet-id", "a"], "unknown option '--agnet-id'\n(Did you mean --agent-id?)"],
    ["agent-inbox-cli", ["-x"], "unknown option '-x'"],
    ["agent-inbox-cli", ["--agent-id", "a", "stray"], "unexpected argument: stray"],
    ["agent-checkin-cli", ["--agent-id", "a", "--confirm=yes"], "option '--confirm' takes no value (got --confirm=yes)"],
    ["agent-ack-cli", ["--agent-id", "a"], "--message-id: give exactly one of --message-id or --up-to-seq"],
    ["agents-list-cli", ["--view", "grid"], "--view: must be one of list|topology (got grid)"],
    ["agent-send-cli", ["--from", "a", "--to", "b", "--body", ""], '--body: must not be empty (got "")'],
    // --reason exists on reject and cancel, not on accept: suggestions come only from the command being parsed.
    ["agent-task-cli", ["accept", "--reason", "x"], "unknown option '--reason'"],
    ["agent-task-cli", ["bogus"], "unknown subcommand 'bogus'; valid: post, list, accept, complete, reject, cancel"],
    ["agent-task-cli", [], "a subcommand is required; valid: post, list, accept, complete, reject, cancel"],
    ["agent-task-cli", ["help", "bogus"], "unknown subcommand 'bogus'; valid: post, list, accept, complete, reject, cancel"],
    [
      "herdr-lease-cli",
      ["controller", "acquir"],
      "unknown subcommand 'acquir'; valid: controller acquire, controller resume, controller renew, controller release, controller takeover",
    ],
    [
      "herdr-agent-control",
      ["ask", "rev-a", "--", "--session=x"],
      "MESSAGE: must not be '--session' or begin with '--session=' (Herdr takes that as its session flag, wherever it stands)",
    ],
  ] as const)("%s %j", async (binary, argv, message) => {
    expect(await rejects(binary, [...argv])).toBe(message);
  });

  test("a long offending value is shortened in the message", async () => {
    const message = await rejects("agent-inbox-cli", ["--agent-id", "x".repeat(200)]);
    expect(message.length).toBeLessThan(200);
    expect(message).toContain("…");
  });

  test("an unknown option is rejected before the command runs or any store is touched", async () => {
    const binary = await loadBinary("agent-inbox-cli");
    const run = binary.command?.run;
    expect(run).toBeTypeOf("function");
    await expect(parseArgv(binary, ["--agent-id", "a", "--bogus"])).rejects.toThrow(/--bogus/);
  });
});
