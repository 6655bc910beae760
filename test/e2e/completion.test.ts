// `<binary> completion bash|zsh|fish`: generated from the schemas --help is rendered from, for every binary. The bash
// script is sourced in a real bash and asked for completions the way bash's programmable completion asks
// (COMP_WORDS, COMP_CWORD, the function `complete -p` names); zsh's and fish's are syntax-checked by their shells
// and asked too (fish through `complete -C`, zsh with compadd standing in for its completion widget).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { completionScript } from "../../app/agent_computer/src/cli/kernel/completion/script.ts";
import { commandFlags } from "../../app/agent_computer/src/cli/kernel/flags.ts";
import { runBin } from "../helpers/bin.ts";
import { allCommands, binaryNames, loadBinary } from "../helpers/registry.ts";

const scratch = mkdtempSync(join(tmpdir(), "ac-completion-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const has = (shell: string): boolean => Bun.spawnSync(["sh", "-c", `command -v ${shell}`]).exitCode === 0;
const SHELLS = ["bash", "zsh", "fish"] as const;
const installed = Object.fromEntries(SHELLS.map((s) => [s, has(s)])) as Record<(typeof SHELLS)[number], boolean>;

/** Every binary's script for every shell, written to scratch/<binary>.<shell>. */
const scripts = new Map<string, string>();
beforeAll(async () => {
  for (const name of binaryNames) {
    const binary = await loadBinary(name);
    for (const shell of SHELLS) {
      const text = await completionScript(binary, shell);
      const file = join(scratch, `${name}.${shell}`);
      writeFileSync(file, text);
      scripts.set(`${name}.${shell}`, text);
    }
  }
});

/** What bash offers for the words typed so far (the last one is the word under the cursor). */
const bashOffers = async (words: string[], cwd = scratch): Promise<string[]> => {
  const binary = words[0] as string;
  const program = [
    `source ${join(scratch, `${binary}.bash`)}`,
    `spec=$(complete -p ${binary}) || exit 3`,
    `fn=\${spec#*-F }; fn=\${fn%% *}`,
    'COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "$fn"',
    `printf "%s\\n" "\${COMPREPLY[@]}"`,
  ].join("\n");
  const r = await execa("bash", ["--norc", "--noprofile", "-c", program, "bash", ...words], { cwd, reject: false });
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  return String(r.stdout).split("\n").filter(Boolean).sort();
};

describe("completion scripts", () => {
  test("the completion word collides with no subcommand or positional of any binary", async () => {
    for (const name of binaryNames) {
      const binary = await loadBinary(name);
      const firstWords = Object.keys(binary.subcommands ?? {}).map((key) => key.split(" ")[0]);
      expect(firstWords, name).not.toContain("completion");
      // A positional of the binary's own command would take the word as its value.
      expect(binary.command?.args ?? [], name).toEqual([]);
      expect(binary.command?.rest, name).toBeUndefined();
    }
  });

  test("every script is bounded by the output budget", () => {
    for (const [key, text] of scripts) expect(Buffer.byteLength(text), key).toBeLessThan(16 * 1024);
  });

  test("bash offers every flag the schema derives, for every command", async () => {
    const commands = await allCommands();
    // One bash for all of them: each block asks for "-" after the command's words and prints what it got.
    const program = [
      ...binaryNames.map((name) => `source ${join(scratch, `${name}.bash`)}`),
      ...commands.map(({ binary, words }) => {
        const typed = [binary, ...words, "-"].map((w) => `'${w}'`).join(" ");
        return `COMP_WORDS=(${typed}); COMP_CWORD=${words.length + 1}; _ac_${binary.replaceAll("-", "_")}; echo "\${COMPREPLY[*]}"`;
      }),
    ].join("\n");
    const r = await execa("bash", ["--norc", "--noprofile", "-c", program]);
    const lines = String(r.stdout).split("\n");
    commands.forEach(({ binary, words, def }, i) => {
      const derived = commandFlags(def).flatMap((f) => [f.name, ...f.aliases]);
      expect((lines[i] ?? "").split(" ").sort(), `${binary} ${words.join(" ")}`).toEqual(
        [...derived, "--json", "--help", "-h", "--version", "-V"].sort(),
      );
    });
  });

  test("bash completes a subcommand, a nested one, a flag and an enum value", async () => {
    expect(await bashOffers(["herdr-lease-cli", "contr"])).toEqual(["controller"]);
    expect(await bashOffers(["herdr-lease-cli", "controller", ""])).toEqual(
      ["acquire", "release", "renew", "resume", "takeover"].sort(),
    );
    expect(await bashOffers(["agent-reserve-cli", "reserve", "--sh"])).toEqual(["--shared"]);
    expect(await bashOffers(["agents-list-cli", "--view", ""])).toEqual(["list", "topology"]);
    expect(await bashOffers(["agent-task-cli", "list", "--scope", "a"])).toEqual(["all"]);
    expect(await bashOffers(["agent-task-cli", "list", "--state", "c"])).toEqual(["cancelled", "completed"]);
    expect(await bashOffers(["agent-inbox-cli", "completion", ""])).toEqual(["bash", "fish", "zsh"]);
  });

  test("bash skips a flag's value, offers nothing for free text and files for a path", async () => {
    // "list" is --reason's value here, not the subcommand: the path stays at reserve.
    expect(await bashOffers(["agent-reserve-cli", "reserve", "--reason", "list", "--sh"])).toEqual(["--shared"]);
    expect(await bashOffers(["agent-send-cli", "--body", ""])).toEqual([]);
    // --view=l: bash splits it at the "=".
    expect(await bashOffers(["agents-list-cli", "--view", "=", "l"])).toEqual(["list"]);
    expect(await bashOffers(["agents-list-cli", "--view", "="])).toEqual(["list", "topology"]);
    const dir = mkdtempSync(join(scratch, "files-"));
    writeFileSync(join(dir, "token.txt"), "");
    expect(await bashOffers(["agent-inbox-cli", "--token-file", "tok"], dir)).toEqual(["token.txt"]);
  });

  test.skipIf(!installed.zsh)("zsh: every script parses, registers under compinit and completes", async () => {
    const all = binaryNames.map((name) => scripts.get(`${name}.zsh`)).join("\n");
    const parsed = await execa("zsh", ["-n"], { input: all, reject: false });
    expect(parsed.stderr).toBe("");
    expect(parsed.exitCode).toBe(0);
    const file = join(scratch, "herdr-lease-cli.zsh");
    const registered = await execa("zsh", [
      "-f",
      "-c",
      `autoload -Uz compinit; compinit -u -d ${join(scratch, "zcompdump")}; source ${file}; print -r -- $_comps[herdr-lease-cli]`,
    ]);
    expect(registered.stdout).toBe("_ac_herdr_lease_cli");
    const asked = await execa("zsh", [
      "-f",
      "-c",
      `compdef() { :; }; compadd() { print -r -- "\${(P)2}"; }; source ${file}
       words=(herdr-lease-cli controller acquire --authority-ref x --t); CURRENT=6; _ac_herdr_lease_cli`,
    ]);
    expect(asked.stdout).toBe("--authority-ref --authority-sha256 --ttl-seconds --json --help -h --version -V");
  });

  test.skipIf(!installed.fish)("fish: every script parses and completes through complete -C", async () => {
    const all = join(scratch, "all.fish");
    writeFileSync(all, binaryNames.map((name) => scripts.get(`${name}.fish`)).join("\n"));
    const parsed = await execa("fish", ["--no-execute", all], { reject: false });
    expect(parsed.stderr).toBe("");
    expect(parsed.exitCode).toBe(0);
    const file = join(scratch, "herdr-lease-cli.fish");
    const asked = await execa("fish", ["--no-config", "-c", `source ${file}; complete -C 'herdr-lease-cli controller re'`]);
    expect(String(asked.stdout).split("\n").sort()).toEqual(["release", "renew", "resume"]);
  });

  test("the binary prints the script the kernel generates, and refuses an unknown shell naming it", async () => {
    const r = await runBin("agent-reserve-cli", ["completion", "bash"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(scripts.get("agent-reserve-cli.bash"));
    const bad = await runBin("agent-inbox-cli", ["completion", "tcsh"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain("completion: the shell must be one of bash, zsh, fish (got tcsh)");
    for (const asked of [
      ["completion", "--help"],
      ["help", "completion"],
    ]) {
      const help = await runBin("agent-inbox-cli", asked);
      expect(help.exitCode, asked.join(" ")).toBe(0);
      expect(help.stdout).toContain("agent-inbox-cli completion bash|zsh|fish");
    }
  });
});
