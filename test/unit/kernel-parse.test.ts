// argv → options, through the same schemas the binaries use: coercion, defaults, repeatable flags, errors.
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { argvToRaw } from "../../app/agent_computer/src/cli/kernel/argv-tokens.ts";
import { defineCommand } from "../../app/agent_computer/src/cli/kernel/command.ts";
import { parseOptions } from "../../app/agent_computer/src/cli/kernel/parse.ts";
import ack from "../../app/agent_computer/src/cli/mesh/agent-ack-cli.ts";
import checkin from "../../app/agent_computer/src/cli/mesh/agent-checkin-cli.ts";
import inbox from "../../app/agent_computer/src/cli/mesh/agent-inbox-cli.ts";
import send from "../../app/agent_computer/src/cli/mesh/agent-send-cli.ts";
import { AppError } from "../../app/agent_computer/src/errors.ts";

const fails = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("INVALID_INPUT");
    return (error as AppError).message;
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

describe("argv tokens (the kernel's own long-option parser)", () => {
  const def = defineCommand({
    name: "demo-cli",
    summary: "demo",
    description: "demo",
    schema: z.object({
      name: z.string().optional(),
      tag: z.array(z.string()).optional(),
      line: z.array(z.string()).optional(),
      force: z.boolean().default(false),
      target: z.string().optional(),
      text: z.string().optional(),
    }),
    flags: {
      name: { flag: "--name <name>" },
      tag: { flag: "--tag <tag>", repeatable: true },
      line: { flag: "--line <text>", repeatable: true, commaList: false },
      force: { flag: "--force" },
    },
    args: [{ key: "target", name: "<target>" }],
    rest: { key: "text", name: "<text...>" },
    writes: "nothing",
    output: "{}",
    errors: ["INVALID_INPUT"],
    env: [],
    examples: [],
    run: async () => ({}),
    render: () => "",
  });
  const raw = (argv: string[]) => argvToRaw(def, argv);
  const rejects = (argv: string[]): string => fails(() => raw(argv));

  test("--name=value, an empty value, and the last of a repeated single-value flag", () => {
    expect(raw(["--name=a=b"])).toEqual({ name: "a=b" });
    expect(raw(["--name="])).toEqual({ name: "" });
    expect(raw(["--name", "a", "--name", "b"])).toEqual({ name: "b" });
  });

  test("repeatable: comma lists split (and trimmed) unless the flag keeps values whole", () => {
    expect(raw(["--tag", "a, b", "--tag=c"])).toEqual({ tag: ["a", "b", "c"] });
    expect(raw(["--line", "x, y", "--line", "z"])).toEqual({ line: ["x, y", "z"] });
  });

  test("a positional, '-' as a positional, options in any order, free text after --", () => {
    expect(raw(["pane-1", "--force"])).toEqual({ target: "pane-1", force: true });
    expect(raw(["-"])).toEqual({ target: "-" });
    expect(raw(["--force", "p", "--", "--name", "is", "text"])).toEqual({ force: true, target: "p", text: "--name is text" });
    expect(raw(["--json", "p"])).toEqual({ target: "p" });
  });

  test.each([
    [["--name"], "option '--name <name>' argument missing"],
    [["--force=yes"], "option '--force' takes no value (got --force=yes)"],
    [["--nmae", "x"], "unknown option '--nmae'\n(Did you mean --name?)"],
    [["--zzzzzz"], "unknown option '--zzzzzz'"],
    [["-f"], "unknown option '-f'"],
    [["a", "b"], "unexpected argument: b"],
  ])("rejects %j", (argv, message) => {
    expect(rejects(argv)).toBe(message);
  });
});
