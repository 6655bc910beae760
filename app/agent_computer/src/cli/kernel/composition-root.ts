// The one composition root: every process (each command, the worker, the light watcher, and through the worker the
// console) gets its domain deps from here, in the one shape of domain/deps.ts. A command declares what it needs
// (CommandDef.needs) and gets exactly that; Herdr and git load only for the commands that declare them, so the other
// binaries start without them.
import { hostName, localAddresses, localHostId, probePid, unixUserName } from "../../adapters/local-host.ts";
import type { Deps, LocalHost } from "../../domain/deps.ts";
import type { HerdrDeps } from "../../domain/herdr/herdr-deps.ts";
import { rateLimitsFromEnv } from "../../domain/identity/rate-config.ts";
import { newId } from "../../domain/ids.ts";
import { AppError } from "../../errors.ts";
import { agentProcesses } from "../../local/agent-processes.ts";
import { herdrStateDirs } from "../../local/herdr-state.ts";
import { resolvePaths } from "../../paths.ts";
import { storeDialect } from "../../store/dialect.ts";
import type { Store } from "../../store/port.ts";
import { type ClockOffset, measureServerSkew } from "../../store/server-clock.ts";
import type { CommandDef, DepsOf, KernelDeps } from "./command.ts";
import type { CommandContext } from "./command-context.ts";
import { namingTokenSource, resolveCredential } from "./credential.ts";

/**
 * The context's store, opened at its first read or write: a command (a Herdr one, a light watcher that finds another
 * running) that never reaches the store never opens it. The kernel closes what was opened.
 */
export const lazyStore = (ctx: Pick<CommandContext, "env" | "store">): Store => {
  const dialect = storeDialect(ctx.env);
  const store: Store = {
    dialect,
    write: (fn, options) => ctx.store().then((opened) => opened.write(fn, options)),
    read: (fn) => ctx.store().then((opened) => opened.read(fn)),
    close: async () => {},
  };
  if (dialect === "postgres") {
    store.listen = (channel, onHint) => ctx.store().then((opened) => opened.listen?.(channel, onHint) ?? (async () => {}));
    store.serverNow = () => ctx.store().then((opened) => (opened.serverNow ? opened.serverNow() : Date.now()));
  } else {
    store.watchCommits = (onHint) => ctx.store().then((opened) => opened.watchCommits?.(onHint) ?? (async () => {}));
  }
  return store;
};

/**
 * "call": the clock stops when the deps are built, so every record of a one-shot command carries one instant.
 * "live": a process that waits or polls (Herdr commands, the worker, the watcher) reads the time at each look.
 * Either way it is the host's clock plus `offset`: on PostgreSQL the database server's clock (store/server-clock.ts).
 */
export type Clock = "call" | "live";

const NO_OFFSET: ClockOffset = { ms: 0 };

const clockOf = (ctx: Pick<CommandContext, "now">, clock: Clock, offset: ClockOffset): (() => number) => {
  if (clock === "live") return () => ctx.now() + offset.ms;
  const at = ctx.now();
  return () => at + offset.ms;
};

/**
 * The context on the store's clock: on PostgreSQL, opening the store measures the server's clock against this
 * host's, and every time read from then on is the server's (a ttl or due time written by this process means the same
 * on every host). So the store opens here, before the command reads any time; a failure to reach it is met at the
 * command's first store use, so nothing is written on an unmeasured clock. A call that reads no store says so
 * (needs.usesStore) and skips this, so an unanswering server never delays it. SQLite's clock is this host's, and its
 * store opens at first use.
 */
const onStoreClock = async (ctx: CommandContext): Promise<CommandContext> => {
  if (storeDialect(ctx.env) !== "postgres") return ctx;
  const offset: ClockOffset = { ms: 0 };
  let measured: Promise<Store> | undefined;
  const clocked: CommandContext = {
    ...ctx,
    now: () => ctx.now() + offset.ms,
    store: () => {
      measured ??= ctx.store().then(async (store) => {
        offset.ms = (await measureServerSkew(store, () => ctx.now(), 1))?.offset_ms ?? 0;
        return store;
      });
      return measured;
    },
  };
  await clocked.store().catch(() => undefined);
  return clocked;
};

/** The context of a call that declared it reaches no store: a store use would be a wrong declaration, said as such. */
const withoutStore = (def: CommandDef, ctx: CommandContext): CommandContext => ({
  ...ctx,
  store: () => Promise.reject(new AppError("INTERNAL", `${def.name} declared that this call reads no store, but it did`)),
});

/** What this composition root always knows: the host's id, its process probe and its agents' processes. */
export type HostDeps = Deps & { local: LocalHost };

/** The Unix user this process runs as: the console's owner, for the worker (a host fact, so read here). */
export const processUser = (env: Record<string, string | undefined>): string => unixUserName(env);

/** Deps over a given store, for a process that opens its store itself (the worker waits for it to come up). */
export const depsOver = async (
  ctx: Pick<CommandContext, "env" | "now">,
  clock: Clock,
): Promise<(store: Store, offset?: ClockOffset) => HostDeps> => {
  const [host, hostId] = await Promise.all([hostName(), localHostId(ctx.env)]);
  const limits = rateLimitsFromEnv(ctx.env);
  const processes = agentProcesses(ctx.env, resolvePaths(ctx.env));
  return (store, offset = NO_OFFSET) => ({
    store,
    now: clockOf(ctx, clock, offset),
    host,
    newId,
    local: { hostId, probe: probePid, processes, addresses: localAddresses },
    limits,
  });
};

/** The deps of one command over the context's lazily opened store. */
const storeDeps = async (ctx: CommandContext, clock: Clock = "call"): Promise<HostDeps> =>
  (await depsOver(ctx, clock))(lazyStore(ctx));

/** Deps plus the Herdr adapter, git and the host's Herdr state dirs, on a live clock (the commands wait). */
const herdrDeps = async (ctx: CommandContext): Promise<HerdrDeps> => {
  const [deps, { createHerdr }, { createGit }] = await Promise.all([
    storeDeps(ctx, "live"),
    import("../../adapters/herdr/client.ts"),
    import("../../adapters/git.ts"),
  ]);
  return {
    ...deps,
    herdr: createHerdr({ env: ctx.env }),
    env: ctx.env,
    dirs: herdrStateDirs(ctx.paths),
    git: (worktree) => createGit(worktree, ctx.env),
    sleep: (ms) => Bun.sleep(ms),
  };
};

/** What `def` declares, built once: its credential resolved first (a bad --token-file is refused before anything else), then its deps. */
export const depsFor = async (
  def: CommandDef,
  options: unknown,
  given: CommandContext,
): Promise<DepsOf<typeof def.needs.deps>> => {
  const request = def.needs.credential?.(options as never);
  const credential = request ? await resolveCredential(given, request) : undefined;
  if (def.needs.deps === "none") return { ctx: given, credential } as DepsOf<typeof def.needs.deps>;
  const ctx = def.needs.usesStore?.(options as never) === false ? withoutStore(def, given) : await onStoreClock(given);
  const kernel: KernelDeps = { ctx, credential };
  const deps = def.needs.deps === "herdr" ? await herdrDeps(ctx) : await storeDeps(ctx, def.needs.clock ?? "call");
  return { ...deps, ...kernel } as DepsOf<typeof def.needs.deps>;
};

/** Runs `def` as the kernel does: its declared deps built once, a refused token named by the source it came from. */
export const invokeCommand = async (def: CommandDef, options: unknown, ctx: CommandContext): Promise<unknown> => {
  const deps = await depsFor(def, options, ctx);
  return def.run(options as never, deps as never).catch((error: unknown) => {
    throw namingTokenSource(error, deps.credential);
  });
};
