// The error codes each --help prints must equal the codes its code can throw. The codes thrown are found by a
// static scan of the command module's import graph for `new AppError("CODE"`, so neither side can drift alone.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import type { CommandDef } from "../../app/agent_computer/src/cli/kernel/command.ts";
import { STORE_ERRORS } from "../../app/agent_computer/src/errors.ts";
import { allCommands } from "../helpers/registry.ts";

const SRC = resolve(import.meta.dirname, "../../app/agent_computer/src");
/** The families this check covers (identity and the mesh it builds on); widen as other families adopt it. */
const FAMILIES = ["identity", "mesh"];
/**
 * Codes no module graph shows but every command that opens the store can produce: argv parsing and schema
 * validation (kernel/parse.ts, run by kernel/run.ts), a bug (kernel/run.ts), and the store's environment (errors.ts
 * STORE_ERRORS: the drivers' error tables and store/open.ts, loaded by ctx.store()).
 */
const ALWAYS = ["INVALID_INPUT", "INTERNAL", ...STORE_ERRORS];
/**
 * Codes the scan finds in a module a command imports but on a path that command never takes. Each entry says why;
 * the test also fails when an entry stops being found, so this list cannot rot.
 */
const CHANNEL_POSTS_ONLY = "only post and read require membership (domain/mesh/channels.ts, one module for every action)";
const CHANNEL_CREATE_ONLY = "only create refuses a name that exists (domain/mesh/channels.ts, one module for every action)";
const WEBHOOK_ADD_ONLY =
  "only add refuses an agent that has the most endpoints (domain/webhooks/endpoints.ts, one module for every action)";
const WEBHOOK_NO_ENDPOINT_NAMED = "it names no endpoint, so none can be missing (domain/webhooks/endpoints.ts)";
const UNREACHABLE: Record<string, Record<string, string>> = {
  "agent-checkin-cli": {
    UNKNOWN_AGENT: "authenticate() runs only for a name that exists; an unknown name is registered instead",
  },
  "agent-channel-cli create": {
    NOT_FOUND: "the channel is read back in the transaction that created it",
    NOT_A_MEMBER: CHANNEL_POSTS_ONLY,
  },
  "agent-channel-cli join": { CONFLICT: CHANNEL_CREATE_ONLY, NOT_A_MEMBER: CHANNEL_POSTS_ONLY },
  "agent-channel-cli leave": { CONFLICT: CHANNEL_CREATE_ONLY, NOT_A_MEMBER: CHANNEL_POSTS_ONLY },
  "agent-channel-cli list": {
    CONFLICT: CHANNEL_CREATE_ONLY,
    NOT_A_MEMBER: CHANNEL_POSTS_ONLY,
    NOT_FOUND: "list names no channel, so none can be missing",
  },
  "agent-channel-cli post": { CONFLICT: CHANNEL_CREATE_ONLY },
  "agent-channel-cli read": { CONFLICT: CHANNEL_CREATE_ONLY },
  "agent-webhook-cli add": { NOT_FOUND: WEBHOOK_NO_ENDPOINT_NAMED },
  "agent-webhook-cli list": { CONFLICT: WEBHOOK_ADD_ONLY, NOT_FOUND: WEBHOOK_NO_ENDPOINT_NAMED },
  "agent-webhook-cli remove": { CONFLICT: WEBHOOK_ADD_ONLY },
  "agent-webhook-cli enable": { CONFLICT: WEBHOOK_ADD_ONLY },
  "agent-webhook-cli rotate-secret": { CONFLICT: WEBHOOK_ADD_ONLY },
  "agent-webhook-cli deliveries": { CONFLICT: WEBHOOK_ADD_ONLY },
};

/**
 * Codes a shared module throws only when its caller asks for it: the code counts for a command only when its
 * graph contains a call that asks. Keeps the scan exact without one exemption per command.
 */
const CONDITIONAL = [
  {
    module: "domain/mesh/live-session.ts",
    code: "NOT_CHECKED_IN",
    askedBy: /enterMesh\([^;]*?,\s*true\s*(?:,\s*\w+\s*)?\)/,
    why: "enterMesh throws it only with require=true (inbox, ack)",
  },
];

const VALUE_IMPORT = /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s+["'](\.{1,2}\/[^"']+)["']/gm;
const DYNAMIC_IMPORT = /import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;
const THROWN = /new AppError\(\s*"([A-Z_]+)"/g;

/** Every module a file loads at run time (type-only imports erase), following relative imports only. */
const moduleGraph = (entry: string): string[] => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file) || !file.endsWith(".ts")) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const pattern of [VALUE_IMPORT, DYNAMIC_IMPORT]) {
      for (const match of text.matchAll(pattern)) visit(resolve(dirname(file), match[1] as string));
    }
  };
  visit(entry);
  return [...seen];
};

const thrownCodes = (files: string[]): Set<string> => {
  const codes = new Set<string>();
  const texts = files.map((file) => readFileSync(file, "utf8"));
  for (const [i, file] of files.entries()) {
    const text = texts[i] as string;
    // A computed code would hide from the scan; every AppError in the graph must name its code literally.
    const all = text.match(/new AppError\(/g)?.length ?? 0;
    const literal = [...text.matchAll(THROWN)];
    expect(literal.length, `${file}: every new AppError( names its code as a string literal`).toBe(all);
    const conditional = CONDITIONAL.filter((c) => file === join(SRC, c.module));
    for (const match of literal) {
      const rule = conditional.find((c) => c.code === match[1]);
      if (!rule || texts.some((t) => rule.askedBy.test(t))) codes.add(match[1] as string);
    }
  }
  return codes;
};

/** The module that defines each command, found by loading every file of the covered families. */
const definingFiles = async (): Promise<Map<string, string>> => {
  const byName = new Map<string, string>();
  for (const family of FAMILIES) {
    const dir = join(SRC, "cli", family);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const module = (await import(join(dir, file))) as Record<string, unknown>;
      for (const value of Object.values(module)) {
        const def = value as Partial<CommandDef>;
        if (typeof def?.name === "string" && Array.isArray(def.errors) && typeof def.run === "function") {
          byName.set(def.name, join(dir, file));
        }
      }
    }
  }
  return byName;
};

const files = await definingFiles();
const commands = (await allCommands()).filter((c) => files.has(c.def.name));

describe("help error codes equal the codes the code can throw", () => {
  test("every binary of the covered families is checked", async () => {
    const covered = new Set(commands.map((c) => c.binary));
    for (const binary of ["register-agent-cli", "agent-identity-cli", "agent-task-cli", "agent-send-cli", "agents-list-cli"]) {
      expect(covered.has(binary), binary).toBe(true);
    }
  });

  test.each(commands.map((c) => [c.def.name, c.def] as const))("%s", (name, def) => {
    const scanned = thrownCodes(moduleGraph(files.get(name) as string));
    const unreachable = UNREACHABLE[name] ?? {};
    for (const code of Object.keys(unreachable))
      expect(scanned.has(code), `${name}: exemption ${code} is still thrown`).toBe(true);
    const emitted = new Set([...ALWAYS, ...[...scanned].filter((code) => !(code in unreachable))]);
    const listed = new Set<string>(def.errors);
    expect({
      thrown_but_not_in_help: [...emitted].filter((code) => !listed.has(code)).sort(),
      in_help_but_never_thrown: [...listed].filter((code) => !emitted.has(code)).sort(),
    }).toEqual({ thrown_but_not_in_help: [], in_help_but_never_thrown: [] });
  });
});
