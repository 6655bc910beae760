// --help is the contract: it works anywhere in argv, needs no store and survives a broken environment.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { schemaProperties } from "../../app/agent_computer/src/cli/kernel/help.ts";
import { EXIT_CODE_TABLE } from "../../app/agent_computer/src/errors.ts";
import { runBin } from "../helpers/bin.ts";
import { allCommands, binaryNames } from "../helpers/registry.ts";

const commands = await allCommands();
const missingHome = () => join(mkdtempSync(join(tmpdir(), "ac-help-")), "never-created");

describe("help anywhere, without a store", () => {
  test.each(binaryNames)("%s --help exits 0 with no state dir and creates none", async (name) => {
    const home = missingHome();
    const r = await runBin(name, ["--help"], { env: { AGENT_COMPUTER_HOME: home } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(name);
    expect(r.stdout).toContain("Exit codes:");
    expect(r.stderr).toBe("");
    expect(existsSync(home)).toBe(false);
  });

  test.each(binaryNames)("%s -h works with an unreachable AGENT_COMPUTER_DATABASE_URL", async (name) => {
    const r = await runBin(name, ["-h"], {
      env: { AGENT_COMPUTER_HOME: missingHome(), AGENT_COMPUTER_DATABASE_URL: "postgres://nobody:x@127.0.0.1:1/none" },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Examples:");
  });

  test("-h is recognised after a prepended subcommand word and other flags", async () => {
    const r = await runBin("agent-inbox-cli", ["inbox", "--limit", "5", "-h"], { env: { AGENT_COMPUTER_HOME: missingHome() } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("agent-inbox-cli — ");
  });
});

describe.each(commands.map((c) => [[c.binary, ...c.words].join(" "), c] as const))("contract of %s", (_label, entry) => {
  test("help lists every flag, the env vars, error codes, exit codes and an example", async () => {
    const r = await runBin(entry.binary, [...entry.words, "--help"], { env: { AGENT_COMPUTER_HOME: missingHome() } });
    expect(r.exitCode).toBe(0);
    for (const spec of Object.values(entry.def.flags)) expect(r.stdout).toContain(spec.flag.split(" ")[0]);
    for (const env of entry.def.env) expect(r.stdout).toContain(env);
    for (const code of entry.def.errors) expect(r.stdout).toContain(code);
    expect(r.stdout).toContain(EXIT_CODE_TABLE.slice(0, 40));
    expect(entry.def.examples.length).toBeGreaterThan(0);
    for (const example of entry.def.examples) expect(example).toContain(entry.binary);
  });

  test("every flag and argument has a description in its schema", () => {
    const props = schemaProperties(entry.def);
    const keys = [...Object.keys(entry.def.flags), ...(entry.def.args ?? []).map((a) => a.key)];
    for (const key of keys) expect(props[key]?.description, `${key} has .describe()`).toBeTruthy();
  });
});
