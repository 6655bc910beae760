// A command declares what it needs and the kernel builds exactly that (cli/kernel/composition-root.ts): the deps kind, the clock and
// whose credential. The credential is one value (token, source, hint) resolved once; a refused token is named by
// that source, never echoed. And a command's run takes fake deps: no store, no argv, no process.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import bridgeStatusCommand from "../../app/agent_computer/src/cli/herdr/lease-bridge-status.ts";
import type { CommandDef, DepsKind, DepsOf, Needs } from "../../app/agent_computer/src/cli/kernel/command.ts";
import type { CommandContext } from "../../app/agent_computer/src/cli/kernel/command-context.ts";
import { depsFor, invokeCommand } from "../../app/agent_computer/src/cli/kernel/composition-root.ts";
import { ownCredential } from "../../app/agent_computer/src/cli/kernel/credential.ts";
import { readLimited } from "../../app/agent_computer/src/cli/kernel/input.ts";
import { TokenMismatch } from "../../app/agent_computer/src/domain/identity/token-mismatch.ts";
import { AppError, isAppError } from "../../app/agent_computer/src/errors.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";

const contextWith = (env: Record<string, string> = {}): CommandContext => {
  const full = { AGENT_COMPUTER_HOME: "/nonexistent/ac-deps-test", AGENT_COMPUTER_HOST_ID: "host-a", ...env };
  return {
    env: full,
    paths: resolvePaths(full),
    now: () => 1_000,
    store: () => Promise.reject(new Error("no store in this test")),
    readInput: readLimited,
  };
};

const declaring = (needs: Needs<{ agentId: string }, DepsKind>, run?: CommandDef["run"]) =>
  ({ needs, run: run ?? (async () => "ran") }) as unknown as CommandDef;

const TOKEN = "act_0123456789abcdef0123456789abcdef0123456789abcdef";

describe("a command gets what it declares", () => {
  test('"none": the context and the credential only; no store, no Herdr', async () => {
    const deps = await depsFor(declaring({ deps: "none" }), {}, contextWith());
    expect(Object.keys(deps).sort()).toEqual(["credential", "ctx"]);
  });

  test('"store": the domain deps over a store not yet opened, and no Herdr', async () => {
    const deps = (await depsFor(declaring({ deps: "store" }), {}, contextWith())) as DepsOf<"store">;
    expect(deps.store.dialect).toBe("sqlite");
    expect(deps.local.hostId).toBe("host-a");
    expect("herdr" in deps).toBe(false);
  });

  test('"herdr": the Herdr adapter and git besides', async () => {
    const deps = (await depsFor(declaring({ deps: "herdr" }), {}, contextWith())) as DepsOf<"herdr">;
    expect(typeof deps.herdr.getAgent).toBe("function");
    expect(typeof deps.git).toBe("function");
  });

  test("the declared credential is resolved into one value: token, source, how to fix it", async () => {
    const ctx = contextWith({ RELAY_AGENT_TOKEN: TOKEN });
    const deps = await depsFor(declaring({ deps: "none", credential: ownCredential }), { agentId: "writer" }, ctx);
    expect(deps.credential).toMatchObject({ token: TOKEN, source: "RELAY_AGENT_TOKEN" });
    expect(deps.credential?.hint).toContain("unset it");
    const undeclared = await depsFor(declaring({ deps: "none" }), { agentId: "writer" }, ctx);
    expect(undeclared.credential).toBeUndefined();
    const nowhere = await depsFor(declaring({ deps: "none", credential: ownCredential }), { agentId: "writer" }, contextWith());
    expect(nowhere.credential).toBeUndefined();
  });
});

describe("a refused token is named by the source it came from", () => {
  const refusing = declaring({ deps: "none", credential: ownCredential }, async () => {
    throw new TokenMismatch("writer");
  });
  const refusal = async (ctx: CommandContext) => {
    const error = await invokeCommand(refusing, { agentId: "writer" }, ctx).catch((e: unknown) => e);
    if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
    return error.toJSON().error;
  };

  test("the source, its hint and token_source; never the token", async () => {
    const error = await refusal(contextWith({ RELAY_AGENT_TOKEN: TOKEN }));
    expect(error).toMatchObject({
      code: "AUTH_FAILED",
      message: "the token from RELAY_AGENT_TOKEN does not match agent writer",
      token_source: "RELAY_AGENT_TOKEN",
    });
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });

  test("other errors pass unchanged", async () => {
    const other = new AppError("NOT_FOUND", "no such thing");
    const def = declaring({ deps: "none", credential: ownCredential }, async () => {
      throw other;
    });
    const ctx = contextWith({ RELAY_AGENT_TOKEN: TOKEN });
    expect(await invokeCommand(def, { agentId: "writer" }, ctx).catch((e: unknown) => e)).toBe(other);
  });
});

test("a command's run with fake deps: herdr-lease-cli bridge-status over a fake host and clock", async () => {
  const ctx = contextWith();
  const fake = { ctx, credential: undefined, local: { hostId: "host-a" }, now: () => 1_000 } as unknown as DepsOf<"store">;
  const result = (await bridgeStatusCommand.run({}, fake)) as { reservation_locks: Record<string, { state: string }> };
  expect(Object.values(result.reservation_locks).map((lock) => lock.state)).toEqual([
    "absent",
    "absent",
    "absent",
    "absent",
    "absent",
  ]);
});

test("no command builds its own deps: only the kernel imports the composition root", () => {
  const cli = resolve(import.meta.dirname, "../../app/agent_computer/src/cli");
  const builders = readdirSync(cli, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.startsWith("kernel/"))
    .filter((file) => /kernel\/composition-root\.ts"|buildH?e?r?d?r?Deps\(/.test(readFileSync(join(cli, file), "utf8")));
  // The worker opens its store itself (it waits for it to come up) and takes the composition root's deps factory.
  expect(builders).toEqual(["worker/agent-computer-worker.ts"]);
});
