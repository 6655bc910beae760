// --help is the contract: it works anywhere in argv, needs no store and survives a broken environment. The process
// cases spawn the binaries; what the contract holds is checked in process, against the same renderer.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { commandFlags, flagSyntax } from "../../app/agent_computer/src/cli/kernel/flags.ts";
import { renderBinaryHelp, renderCommandHelp, schemaProperties } from "../../app/agent_computer/src/cli/kernel/help.ts";
import { EXIT_CODE_TABLE } from "../../app/agent_computer/src/errors.ts";
import { checkInAgent } from "../helpers/agents.ts";
import { repoRoot, runBin } from "../helpers/bin.ts";
import { allCommands, binaryNames, loadBinary } from "../helpers/registry.ts";

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

  test.each(binaryNames)("%s --version and -V print the package version, with a broken store URL", async (name) => {
    const { version } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
    const env = { AGENT_COMPUTER_HOME: missingHome(), AGENT_COMPUTER_DATABASE_URL: "postgres://nobody:x@127.0.0.1:1/none" };
    for (const flag of ["--version", "-V"]) {
      const r = await runBin(name, [flag], { env });
      expect({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
        exitCode: 0,
        stdout: `${version}\n`,
        stderr: "",
      });
    }
  });

  test("help <subcommand> prints exactly what <subcommand> --help prints", async () => {
    const env = { AGENT_COMPUTER_HOME: missingHome() };
    const viaWord = await runBin("herdr-lease-cli", ["help", "controller", "acquire"], { env });
    const viaFlag = await runBin("herdr-lease-cli", ["controller", "acquire", "--help"], { env });
    expect(viaWord.exitCode).toBe(0);
    expect(viaWord.stdout).toContain("herdr-lease-cli controller acquire — ");
    expect(viaWord.stdout).toBe(viaFlag.stdout);
  });

  test("an unknown subcommand is answered with the valid ones, exit 2", async () => {
    const r = await runBin("agent-task-cli", ["bogus"], { env: { AGENT_COMPUTER_HOME: missingHome() } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("unknown subcommand 'bogus'; valid: post, list, accept, complete, reject, cancel");
  });

  test("-h as the value of --body is sent as the message, not taken as help", async () => {
    const home = mkdtempSync(join(tmpdir(), "ac-help-dash-"));
    const env = { AGENT_COMPUTER_HOME: home };
    const tokens = mkdtempSync(join(tmpdir(), "ac-help-dash-tokens-"));
    const alice = await checkInAgent(env, tokens, "alice");
    const bob = await checkInAgent(env, tokens, "bob");
    const sent = await runBin(
      "agent-send-cli",
      ["--from", "alice", "--token-file", alice.tokenFile, "--to", "bob", "--body", "-h"],
      {
        env,
      },
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    const inbox = await runBin("agent-inbox-cli", ["--agent-id", "bob", "--token-file", bob.tokenFile, "--json"], { env });
    expect(inbox.json<{ messages: { body: string }[] }>().messages.map((m) => m.body)).toEqual(["-h"]);
  });

  test("-h is recognised after a prepended subcommand word and other flags", async () => {
    const r = await runBin("agent-inbox-cli", ["inbox", "--limit", "5", "-h"], { env: { AGENT_COMPUTER_HOME: missingHome() } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("agent-inbox-cli — ");
  });
});

describe.each(commands.map((c) => [[c.binary, ...c.words].join(" "), c] as const))("contract of %s", (_label, entry) => {
  const help = renderCommandHelp(entry.def);

  test("help lists every flag with its aliases, the env vars, error codes, exit codes and an example", () => {
    for (const flag of commandFlags(entry.def)) expect(help).toContain(`  ${flagSyntax(flag)}\n`);
    for (const env of entry.def.env) expect(help).toContain(env);
    for (const code of entry.def.errors) expect(help).toContain(code);
    expect(help).toContain(EXIT_CODE_TABLE.slice(0, 40));
    expect(entry.def.examples.length).toBeGreaterThan(0);
    for (const example of entry.def.examples) expect(example).toContain(entry.binary);
  });

  test("every flag and argument has a description in its schema", () => {
    const props = schemaProperties(entry.def);
    const keys = [...commandFlags(entry.def).map((f) => f.key), ...(entry.def.args ?? []).map((a) => a.key)];
    for (const key of keys) expect(props[key]?.description, `${key} has .describe()`).toBeTruthy();
  });

  test("help lines break only at spaces: a line over 100 columns is preformatted or one unbroken token", () => {
    for (const line of help.split("\n").filter((l) => l.length > 100)) {
      const preformatted = /^ {2}\S/.test(line) || /^ {2}-- /.test(line);
      expect(preformatted || line.trim().split(" ").length === 1, line).toBe(true);
    }
  });
});

test.each(binaryNames)("%s: its top-level help breaks lines only at spaces", async (name) => {
  const help = await renderBinaryHelp(await loadBinary(name));
  for (const line of help.split("\n").filter((l) => l.length > 100)) {
    expect(/^ {2}\S/.test(line) || line.trim().split(" ").length === 1, line).toBe(true);
  }
});
