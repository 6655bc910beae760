// The composition root (cli/kernel/composition-root.ts): a command gets what it declares (CommandDef.needs) and no command builds
// its own deps; on SQLite the store it hands out opens at its first use, so a command that never reaches the store (a
// Herdr command, a light watcher that gives way) never opens it; on PostgreSQL it opens first, to read the server's
// clock; a one-shot command's clock stops at the call's start, a waiting process's clock runs.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import receipts from "../../app/agent_computer/src/cli/herdr/control-receipts.ts";
import bridgeStatus from "../../app/agent_computer/src/cli/herdr/lease-bridge-status.ts";
import waitAny from "../../app/agent_computer/src/cli/herdr/lease-wait-any.ts";
import type { CommandDef, DepsKind, Needs } from "../../app/agent_computer/src/cli/kernel/command.ts";
import type { CommandContext } from "../../app/agent_computer/src/cli/kernel/command-context.ts";
import { depsFor, lazyStore } from "../../app/agent_computer/src/cli/kernel/composition-root.ts";
import { readLimited } from "../../app/agent_computer/src/cli/kernel/input.ts";
import wakeCli from "../../app/agent_computer/src/cli/mesh/agent-wake-cli.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";

const fakeContext = (env: Record<string, string> = {}) => {
  const fullEnv = { AGENT_COMPUTER_HOME: "/nonexistent/ac-root-test", AGENT_COMPUTER_HOST_ID: "host-a", ...env };
  let opens = 0;
  let clock = 1_000;
  const store: Store = {
    dialect: "sqlite",
    read: async (fn) => fn({} as never),
    write: async (fn) => fn({} as never),
    close: async () => {},
  };
  const ctx: CommandContext = {
    env: fullEnv,
    paths: resolvePaths(fullEnv),
    now: () => clock,
    store: async () => {
      opens += 1;
      return store;
    },
    readInput: readLimited,
  };
  return { ctx, opens: () => opens, advance: (ms: number) => (clock += ms) };
};

/** A command that declares `needs` (the rest of a definition does not matter to the composition root). */
const declaring = (needs: Needs<unknown, DepsKind>) => ({ needs }) as unknown as CommandDef;
type Built = Record<string, unknown> & { store: Store; now(): number; local: { hostId: string } };
const buildDeps = async (ctx: CommandContext, clock: "call" | "live" = "call") =>
  (await depsFor(declaring({ deps: "store", clock }), {}, ctx)) as unknown as Built;
const buildHerdrDeps = async (ctx: CommandContext) =>
  (await depsFor(declaring({ deps: "herdr" }), {}, ctx)) as unknown as Built & { herdr: { getAgent: unknown } };

describe("the composition root", () => {
  test("building deps opens no store; the first read does, once per use through the context", async () => {
    const f = fakeContext();
    const deps = await buildDeps(f.ctx);
    expect(f.opens()).toBe(0);
    expect(await deps.store.read(async () => "read")).toBe("read");
    expect(f.opens()).toBe(1);
    expect(deps.local.hostId).toBe("host-a");
  });

  test("Herdr deps open no store until a service reads it", async () => {
    const f = fakeContext();
    const deps = await buildHerdrDeps(f.ctx);
    expect(typeof deps.herdr.getAgent).toBe("function");
    expect(f.opens()).toBe(0);
    await deps.store.write(async () => undefined);
    expect(f.opens()).toBe(1);
  });

  test("a one-shot command's clock stops at the call; a live clock runs", async () => {
    const f = fakeContext();
    const call = await buildDeps(f.ctx);
    const live = await buildDeps(f.ctx, "live");
    f.advance(500);
    expect(call.now()).toBe(1_000);
    expect(live.now()).toBe(1_500);
    expect((await buildHerdrDeps(f.ctx)).now()).toBe(1_500);
  });

  test("on PostgreSQL every command with a store opens it first and reads the server's clock", async () => {
    const pg = { AGENT_COMPUTER_DATABASE_URL: "postgres://u@127.0.0.1:1/db" };
    // The server's clock reads 7 s ahead of this fake host's.
    const onServer = (f: ReturnType<typeof fakeContext>): CommandContext => ({
      ...f.ctx,
      store: async () => ({ ...(await f.ctx.store()), serverNow: async () => f.ctx.now() + 7_000 }),
    });
    const f = fakeContext(pg);
    const deps = await depsFor(declaring({ deps: "store" }), {}, onServer(f));
    expect(f.opens()).toBe(1);
    expect((deps as unknown as Built).now()).toBe(8_000);
    expect((deps as unknown as { ctx: CommandContext }).ctx.now()).toBe(8_000);
    const h = fakeContext(pg);
    const herdr = (await depsFor(declaring({ deps: "herdr" }), {}, onServer(h))) as unknown as Built;
    expect(h.opens()).toBe(1);
    expect(herdr.now()).toBe(8_000);
  });

  test("on PostgreSQL a command that cannot reach the store still gets its deps; the store's error waits for its use", async () => {
    const f = fakeContext({ AGENT_COMPUTER_DATABASE_URL: "postgres://u@127.0.0.1:1/db" });
    const down = new Error("store unreachable");
    const unreachable: CommandContext = { ...f.ctx, store: () => Promise.reject(down) };
    const herdr = (await depsFor(declaring({ deps: "herdr" }), {}, unreachable)) as unknown as Built;
    expect(herdr.now()).toBe(1_000);
    await expect(herdr.store.read(async () => undefined)).rejects.toBe(down);
    const deps = (await depsFor(declaring({ deps: "store" }), {}, unreachable)) as unknown as Built;
    await expect(deps.store.write(async () => undefined)).rejects.toBe(down);
  });

  test("on PostgreSQL a call that declares it reads no store is not held up by a server that never answers", async () => {
    const f = fakeContext({ AGENT_COMPUTER_DATABASE_URL: "postgres://u@127.0.0.1:1/db" });
    let opens = 0;
    const silent: CommandContext = {
      ...f.ctx,
      store: () => {
        opens += 1;
        return new Promise<Store>(() => {});
      },
    };
    const storeless = declaring({ deps: "store", clock: "live", usesStore: () => false });
    const built = await Promise.race([depsFor(storeless, {}, silent), Bun.sleep(1_000).then(() => "held up")]);
    expect(built).not.toBe("held up");
    const deps = built as unknown as Built;
    expect(deps.now()).toBe(1_000);
    expect(opens).toBe(0);
    await expect(deps.store.read(async () => undefined)).rejects.toMatchObject({ code: "INTERNAL" });
    expect(opens).toBe(0);
  });

  test("the calls that read no store say so: bridge-status, wait-any, receipts, and agent-wake-cli without --run", () => {
    for (const def of [bridgeStatus, waitAny, receipts]) expect(def.needs.usesStore?.({} as never), def.name).toBe(false);
    expect(wakeCli.needs.usesStore?.({ run: false })).toBe(false);
    expect(wakeCli.needs.usesStore?.({ run: true })).toBe(true);
  });

  test("the lazy store names its dialect from the environment and listens only on PostgreSQL", () => {
    expect(lazyStore(fakeContext().ctx)).toMatchObject({ dialect: "sqlite" });
    expect(lazyStore(fakeContext().ctx).listen).toBeUndefined();
    const pg = lazyStore(fakeContext({ AGENT_COMPUTER_DATABASE_URL: "postgres://u@127.0.0.1:1/db" }).ctx);
    expect(pg.dialect).toBe("postgres");
    expect(typeof pg.listen).toBe("function");
  });
});

const SRC = resolve(import.meta.dirname, "../../app/agent_computer/src");
const ROOT = "cli/kernel/composition-root.ts";
/** What only the composition root may turn into deps: host facts, rate limits from the environment. */
const HOST_FACTS = /adapters\/local-host\.ts|rateLimitsFromEnv|from "node:os"/;

test("no process but through the composition root reads host facts or rate limits for its deps", () => {
  const readers = readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && /^(cli|worker|wake|console|sdk|domain)\//.test(file))
    .filter((file) => file !== ROOT && !file.startsWith("domain/identity/rate-config"))
    .filter((file) => {
      const code = readFileSync(join(SRC, file), "utf8").replace(/^import type .*$/gm, "");
      return HOST_FACTS.test(code);
    });
  expect(readers.map((file) => relative(SRC, join(SRC, file)))).toEqual([]);
});
