// Strict parsing at the front end: every number flag of every binary (found from the schemas, so a new flag is covered
// without touching this file) takes decimal digits only, and agent ids cannot read as a flag or a directory.
import { describe, expect, test } from "vitest";
import { AGENT_ID_PATTERN } from "../../app/agent_computer/src/agent-id.ts";
import { commandFlags, numberKeys } from "../../app/agent_computer/src/cli/kernel/flags.ts";
import { parseArgv } from "../../app/agent_computer/src/cli/kernel/front.ts";
import { agentIdSchema } from "../../app/agent_computer/src/domain/identity/names.ts";
import { AppError } from "../../app/agent_computer/src/errors.ts";
import { allCommands, loadBinary } from "../helpers/registry.ts";

const commands = await allCommands();

/** Every number flag of every command, with the argv words that reach its command. */
const NUMBER_FLAGS = commands.flatMap((c) =>
  commandFlags(c.def)
    .filter((flag) => numberKeys(c.def).has(flag.key))
    .map((flag) => ({ label: `${[c.binary, ...c.words].join(" ")} ${flag.name}`, binary: c.binary, words: c.words, flag })),
);

/** The usage error argv gives, as text ("" when argv parses). */
const refusal = async (binary: string, argv: string[]): Promise<string> => {
  try {
    await parseArgv(await loadBinary(binary), argv);
    return "";
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "INVALID_INPUT") throw error;
    return error.message;
  }
};

const HOSTILE = ["0x10", "1e3", " 5 ", "", "-0", "5.0", "+5", "010", "5,", "Infinity", "NaN", "٣"];

describe("number flags take decimal digits only", () => {
  test("the table is derived from the schemas and holds every number flag", () => {
    const labels = NUMBER_FLAGS.map((f) => f.label);
    expect(labels).toContain("agent-computer-worker --port");
    expect(labels).toContain("register-agent-cli --host-shell-pids");
    expect(labels).toContain("herdr-lease-cli writer release --expected-seq");
    expect(labels.length).toBeGreaterThanOrEqual(40);
  });

  test.each(NUMBER_FLAGS.map((f) => [f.label, f] as const))("%s", async (_, { binary, words, flag }) => {
    for (const value of HOSTILE) {
      const message = await refusal(binary, [...words, flag.name, value]);
      const line = message.split("\n").find((l) => l.startsWith(`${flag.name}: `));
      // A list flag names the item at fault ("5," has an empty one); a single value is shown whole.
      expect(line, `${flag.name} ${JSON.stringify(value)}: ${message}`).toMatch(
        new RegExp(`^${flag.name}: must be a whole number in decimal digits, e\\.g\\. 5 \\(got .*\\)$`),
      );
      if (!flag.list) expect(line).toContain(`(got ${/^[\x21-\x7e]+$/.test(value) ? value : JSON.stringify(value)})`);
    }
    const huge = await refusal(binary, [...words, flag.name, "99999999999999999999"]);
    expect(huge.split("\n")).toContainEqual(
      expect.stringMatching(new RegExp(`^${flag.name}: must be <= \\d+ \\(got 99999999999999999999\\)$`)),
    );
    // Decimal digits are never refused for their form (a bound may still refuse them, in our words).
    const plain = await refusal(binary, [...words, flag.name, "7"]);
    expect(plain).not.toContain(`${flag.name}: must be a whole number`);
  });

  test("the bound named for an out-of-range huge value is the flag's own", async () => {
    expect(await refusal("agent-computer-worker", ["--port", "99999999999999999999"])).toBe(
      "--port: must be <= 65535 (got 99999999999999999999)",
    );
    expect(await refusal("agent-ack-cli", ["--agent-id", "a", "--up-to-seq", "99999999999999999999"])).toBe(
      "--up-to-seq: must be <= 9007199254740991 (got 99999999999999999999)",
    );
  });

  test("an empty --port is refused, not a random port; a list of numbers is checked item by item", async () => {
    expect(await refusal("agent-computer-worker", ["--port", ""])).toBe(
      '--port: must be a whole number in decimal digits, e.g. 5 (got "")',
    );
    expect(await refusal("agent-computer-worker", ["--port=0"])).toBe("");
    const pids = ["--agent-id", "a", "--role", "r", "--capabilities", "c", "--host-shell-pids"];
    expect(await refusal("register-agent-cli", [...pids, "12,0x10"])).toBe(
      "--host-shell-pids: must be a whole number in decimal digits, e.g. 5 (got 0x10)",
    );
    expect(await refusal("register-agent-cli", [...pids, "12, 13"])).toBe(
      '--host-shell-pids: must be a whole number in decimal digits, e.g. 5 (got " 13")',
    );
    expect(await refusal("register-agent-cli", [...pids, "12", "--host-shell-pids", "13,14"])).toBe("");
  });

  test("a refused number is reported beside the other problems of the same call", async () => {
    expect((await refusal("agent-inbox-cli", ["--agent-id", "bad name", "--limit", "1e3"])).split("\n")).toEqual([
      "--limit: must be a whole number in decimal digits, e.g. 5 (got 1e3)",
      '--agent-id: must be 1-64 characters of A-Z a-z 0-9 _ . -, not beginning with - and not . or .. (got "bad name")',
    ]);
  });
});

describe("agent ids", () => {
  test.each(["-", "--json", "-x", "--", ".", "..", "", "a b", "x".repeat(65)])("%j is refused", (id) => {
    expect(AGENT_ID_PATTERN.test(id)).toBe(false);
    expect(agentIdSchema.safeParse(id).success).toBe(false);
  });

  test.each(["a", "a-", "a.b", "a..b", ".a", "_a", "A1", "x".repeat(64), "builder-1"])("%j is accepted", (id) => {
    expect(AGENT_ID_PATTERN.test(id)).toBe(true);
    expect(agentIdSchema.safeParse(id).success).toBe(true);
  });

  test("argv: an id that reads as a flag or a directory is refused naming --agent-id, with the rule", async () => {
    for (const id of ["--json", "-", ".."]) {
      const message = await refusal("agent-checkin-cli", [`--agent-id=${id}`, "--confirm"]);
      expect(message).toBe(
        `--agent-id: must be 1-64 characters of A-Z a-z 0-9 _ . -, not beginning with - and not . or .. (got ${id})`,
      );
    }
    expect(await refusal("agent-send-cli", ["--agent-id", "a", "--to", "-b", "--body", "hi"])).toContain("--to: must be");
  });
});
