// Every error code of the identity spec (and of agent-task-cli) is produced by a black-box call on every store,
// with the exit code of the shared table and listed in that command's --help.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ERROR_CODES, type ErrorCode } from "../../app/agent_computer/src/errors.ts";
import { runBin } from "../helpers/bin.ts";
import { errorOf, identityEnv, registered } from "../helpers/identity.ts";
import { allCommands } from "../helpers/registry.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const commands = await allCommands();
const helpErrors = (label: string): readonly string[] => commands.find((c) => c.def.name === label)?.def.errors ?? [];

interface Case {
  code: ErrorCode;
  /** The command as its help names it: binary and subcommand words. */
  command: string;
  args(ctx: { home: string; session: string; task: string }): string[];
  env?: Record<string, string>;
}

const reg = (name: string, ...extra: string[]) => ["--name", name, "--role", "builder", "--capabilities", "ts", ...extra];

const CASES: Case[] = [
  { code: "INVALID_INPUT", command: "register-agent-cli", args: () => reg("ec-holder", "--force") },
  { code: "AUTH_FAILED", command: "register-agent-cli", args: () => reg("ec-holder"), env: { RELAY_AGENT_TOKEN: "act_wrong" } },
  { code: "NAME_COLLISION_ACTIVE", command: "register-agent-cli", args: () => reg("ec-holder") },
  { code: "NAME_LOOKALIKE", command: "register-agent-cli", args: () => reg("EC-Holder.") },
  {
    code: "FORCE_PRECONDITION_FAILED",
    command: "register-agent-cli",
    args: () => reg("ec-holder", "--force", "--expected-session-id", "null"),
  },
  {
    code: "RATE_LIMITED",
    command: "register-agent-cli",
    args: () => reg("ec-holder"),
    env: { AGENT_COMPUTER_RATE_REGISTER_PER_HOST: "1/3600", AGENT_COMPUTER_HOST_ID: "ec-rate-host" },
  },
  {
    code: "RECOVERY_REQUIRED",
    command: "register-agent-cli",
    args: ({ home }) => reg("ec-recovering", "--recovery-token-file", join(home, "ec-wrong.recovery")),
  },
  {
    code: "REDUCTION_NOT_ALLOWED",
    command: "agent-identity-cli expand-capabilities",
    args: () => ["--name", "ec-holder", "--remove", "ts"],
  },
  {
    code: "NO_OP_EXPANSION",
    command: "agent-identity-cli expand-capabilities",
    args: () => ["--name", "ec-holder", "--add", "ts"],
  },
  {
    code: "UNKNOWN_AGENT",
    command: "agent-identity-cli show",
    args: () => ["--name", "ec-nobody"],
    env: { RELAY_AGENT_TOKEN: "act_x" },
  },
  {
    code: "NOT_FOUND",
    command: "agent-task-cli accept",
    args: () => ["--agent-id", "ec-holder", "--task-id", `task_${"0".repeat(32)}`],
  },
  { code: "CONFLICT", command: "agent-task-cli complete", args: ({ task }) => ["--agent-id", "ec-holder", "--task-id", task] },
];

describe.each(storeNames)("identity error codes on %s", (storeName) => {
  let target: StoreTarget;
  let env: Record<string, string>;
  const ctx = { home: "", session: "", task: "" };
  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    env = identityEnv(target);
    ctx.home = target.env.AGENT_COMPUTER_HOME as string;
    ctx.session = (await registered(env, "ec-holder")).agent.session_id as string;
    await registered(env, "ec-poster");
    const posted = await runBin(
      "agent-task-cli",
      ["post", "--agent-id", "ec-poster", "--title", "t", "--body", "b", "--require-cap", "ts", "--json"],
      { env },
    );
    ctx.task = posted.json<{ task: { id: string } }>().task.id;
    // The rate limit case counts a first registration on its own host, so the call under test is the second.
    await registered(
      { ...env, AGENT_COMPUTER_RATE_REGISTER_PER_HOST: "1/3600", AGENT_COMPUTER_HOST_ID: "ec-rate-host" },
      "ec-rate-1",
    );
    await registered(env, "ec-recovering");
    await runBin("agent-identity-cli", ["revoke-token", "--name", "ec-recovering", "--issue-recovery"], { env });
    writeFileSync(join(ctx.home, "ec-wrong.recovery"), "acr_not-the-recovery-token");
  });
  afterAll(() => target.dispose());

  test.each(CASES.map((c) => [c.code, c] as const))("%s", async (code, c) => {
    const [binary, ...words] = c.command.split(" ");
    const r = await runBin(binary as string, [...words, ...c.args(ctx), "--json"], { env: { ...env, ...c.env } });
    expect(r.exitCode).toBe(ERROR_CODES[code].exit);
    expect(errorOf(r).code).toBe(code);
    expect(helpErrors(c.command)).toContain(code);
  });

  test("every code of the identity spec is covered above", () => {
    const spec = [
      "AUTH_FAILED",
      "RECOVERY_REQUIRED",
      "INVALID_INPUT",
      "RATE_LIMITED",
      "NAME_COLLISION_ACTIVE",
      "FORCE_PRECONDITION_FAILED",
    ];
    const identityCli = ["REDUCTION_NOT_ALLOWED", "NO_OP_EXPANSION"];
    const covered = new Set(CASES.map((c) => c.code));
    for (const code of [...spec, ...identityCli]) expect(covered.has(code as ErrorCode), code).toBe(true);
  });
});
