// argv → options, through the same schemas the binaries use: coercion, defaults, repeatable flags, errors.
import { describe, expect, test } from "vitest";
import { CliError } from "../../app/agent_computer/src/cli/kernel/errors.ts";
import { parseOptions } from "../../app/agent_computer/src/cli/kernel/parse.ts";
import ack from "../../app/agent_computer/src/cli/mesh/agent-ack-cli.ts";
import checkin from "../../app/agent_computer/src/cli/mesh/agent-checkin-cli.ts";
import inbox from "../../app/agent_computer/src/cli/mesh/agent-inbox-cli.ts";
import send from "../../app/agent_computer/src/cli/mesh/agent-send-cli.ts";

const fails = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe("INVALID_INPUT");
    return (error as CliError).message;
  }
  throw new Error("expected a usage error");
};

describe("argv to options", () => {
  test.each([
    [["--agent-id", "a"], { agentId: "a", limit: 50 }],
    [["--agent-id=a", "--limit", "7"], { agentId: "a", limit: 7 }],
    [["--limit", "100", "--agent-id", "a"], { agentId: "a", limit: 100 }],
  ])("inbox %j", (argv, expected) => {
    expect(parseOptions(inbox, argv)).toMatchObject(expected);
  });

  test("repeatable flags accept repetition and comma lists alike", () => {
    expect(parseOptions(checkin, ["--agent-id", "a", "--caps", "ts,sql", "--caps", "go"])).toMatchObject({
      caps: ["ts", "sql", "go"],
    });
    expect(parseOptions(send, ["--from", "a", "--to", "b,c", "--to", "d", "--body", "x"])).toMatchObject({ to: ["b", "c", "d"] });
  });

  test("booleans default to false and are set by presence", () => {
    expect(parseOptions(checkin, ["--agent-id", "a"])).toMatchObject({ confirm: false });
    expect(parseOptions(checkin, ["--agent-id", "a", "--confirm"])).toMatchObject({ confirm: true });
  });

  test("a value that starts with a dash is taken as the value of a flag that needs one", () => {
    expect(parseOptions(send, ["--from", "a", "--to", "b", "--body", "-x is a flag name"])).toMatchObject({
      body: "-x is a flag name",
    });
  });

  test.each([
    [inbox, ["--agent-id", "a", "--limit", "0"], "--limit: Too small: expected number to be >=1 (got 0)"],
    [inbox, ["--limit", "5"], "--agent-id: is required"],
    [inbox, ["--agent-id", "a", "--nope"], "unknown option '--nope'"],
    [inbox, ["--agent-id", "a", "stray"], "unexpected argument: stray"],
    [ack, ["--agent-id", "a"], "--message-id: give exactly one of --message-id or --up-to-seq"],
    [
      checkin,
      ["--agent-id", "a", "--ttl-seconds", "ten"],
      "--ttl-seconds: Invalid input: expected number, received NaN (got ten)",
    ],
  ] as const)("usage error %#", (def, argv, message) => {
    expect(fails(() => parseOptions(def, argv))).toBe(message);
  });

  test("a long offending value is shortened in the message", () => {
    const message = fails(() => parseOptions(inbox, ["--agent-id", "x".repeat(200)]));
    expect(message.length).toBeLessThan(200);
    expect(message).toContain("…");
  });
});
