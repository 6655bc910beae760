import { AppError, diskFullElsewhere, EXIT, isAppError } from "../../errors.ts";
import { resolvePaths } from "../../paths.ts";
import type { StoreUse } from "../../store/open.ts";
import type { Store } from "../../store/port.ts";
import { wantsJson } from "./argv.ts";
import type { BinaryDef, CommandDef } from "./command.ts";
import type { CommandContext } from "./command-context.ts";
import { writeJsonResult, writeJsonStderr, writeResultText, writeStderr, writeStdout } from "./output.ts";
import { pagingFooter } from "./paging.ts";
import { withConfigFile } from "./settings.ts";
import { reachedPhase } from "./startup-phase.ts";

/** Builds the real context; the store is opened lazily so help and usage errors never load a driver. */
export const createContext = (
  env: Record<string, string | undefined>,
  use: StoreUse = {},
): CommandContext & { closeStore(): Promise<void> } => {
  let opened: Promise<Store> | undefined;
  return {
    env,
    paths: resolvePaths(env),
    now: () => Date.now(),
    store: () => {
      opened ??= import("../../store/open.ts")
        .then((m) => m.openStore(env, use))
        .then((store) => {
          reachedPhase("store-open");
          return store;
        });
      return opened;
    },
    readInput: (path, maxBytes) => import("./input.ts").then((m) => m.readLimited(path, maxBytes)),
    closeStore: async () => {
      if (opened) await (await opened.catch(() => undefined))?.close();
    },
  };
};

/** Every error carries a hint: a usage error the short usage, anything else where the contract is. */
const hintFor = async (binary: BinaryDef, def: CommandDef | undefined, error: AppError): Promise<string> => {
  const help = `see ${def?.name ?? binary.name} --help`;
  if (error.code !== "INVALID_INPUT") return error.hint ?? help;
  if (!def) return error.hint ?? help;
  const { shortUsage } = await import("./help.ts");
  return `usage: ${shortUsage(def)}; ${help}`;
};

const reportError = async (binary: BinaryDef, def: CommandDef | undefined, error: unknown, json: boolean): Promise<number> => {
  const known = isAppError(error)
    ? error
    : (diskFullElsewhere(error) ??
      new AppError("INTERNAL", error instanceof Error ? error.message : String(error), {
        hint: "this is a bug; set AGENT_COMPUTER_DEBUG=1 for a stack trace",
      }));
  if (!isAppError(error) && process.env.AGENT_COMPUTER_DEBUG === "1" && error instanceof Error) {
    await writeStderr(`${error.stack}\n`);
  }
  const hint = await hintFor(binary, def, known);
  if (json) {
    const envelope = known.toJSON();
    await writeJsonStderr({ error: { ...envelope.error, hint } });
  } else {
    const lines = [`${def?.name ?? binary.name}: ${known.code}: ${known.message}`];
    lines.push(known.code === "INVALID_INPUT" ? hint.replace("; see ", "\nsee ") : `hint: ${hint}`);
    await writeStderr(`${lines.join("\n")}\n`);
  }
  return known.exitCode;
};

const helpText = async (binary: BinaryDef, subcommand: string | undefined): Promise<string> => {
  if (subcommand === "completion" && !binary.subcommands?.completion) {
    return (await import("./completion/script.ts")).completionHelp(binary.name);
  }
  const { renderBinaryHelp, renderCommandHelp } = await import("./help.ts");
  const load = subcommand === undefined ? undefined : binary.subcommands?.[subcommand];
  return load ? renderCommandHelp(await load()) : renderBinaryHelp(binary);
};

/** A command that needs only its context never loads the composition root (host facts, the vault, Herdr). */
const runCommand = async (def: CommandDef, options: never, ctx: CommandContext): Promise<unknown> => {
  if (def.needs.deps === "none" && !def.needs.credential) return def.run(options, { ctx, credential: undefined });
  return (await import("./composition-root.ts")).invokeCommand(def, options, ctx);
};

/** The single entry point of every binary: parse (help, version), run, render, exit. `use` says how it uses the store. */
export const runBinary = async (binary: BinaryDef, argv: readonly string[], use: StoreUse = {}): Promise<never> => {
  const json = wantsJson(argv);
  let def: CommandDef | undefined;
  let ctx: ReturnType<typeof createContext> | undefined;
  let exitCode: number = EXIT.ok;
  try {
    const { parseArgv } = await import("./front.ts");
    const invocation = await parseArgv(binary, argv, (d) => {
      def = d;
    });
    reachedPhase("argv-parsed");
    if (invocation.kind === "help") await writeStdout(await helpText(binary, invocation.subcommand));
    else if (invocation.kind === "completion") {
      def = undefined;
      await writeStdout(await (await import("./completion/script.ts")).completionScript(binary, invocation.shell));
    } else if (invocation.kind === "version") await writeStdout(`${(await import("./version.ts")).VERSION}\n`);
    else {
      const options = invocation.options as never;
      ctx = createContext(await withConfigFile(process.env), use);
      const result = await runCommand(invocation.def, options, ctx);
      reachedPhase("command-run");
      // A paged result sized its page itself (paging.ts fitPage): only an entry larger than the budget alone passes
      // it, and that entry is shown whole, not cut.
      const paged = typeof result === "object" && result !== null && "next_cursor" in result;
      if (json) await writeJsonResult(result, paged);
      else {
        await writeResultText(invocation.def.render(result, options), pagingFooter(result, binary.name, argv), paged);
        // A result may carry a warning (e.g. presence not renewed on a full disk): in the JSON document, and for a
        // person on stderr, so the answer on stdout stays what it always is.
        const warning = (result as { warning?: unknown } | undefined)?.warning;
        if (typeof warning === "string") await writeStderr(`${invocation.def.name}: warning: ${warning}\n`);
      }
      const failure = invocation.def.failsWith?.(result as never);
      if (failure) exitCode = await reportError(binary, def, failure, json);
    }
  } catch (error) {
    exitCode = await reportError(binary, def, error, json);
  }
  await ctx?.closeStore().catch(() => undefined);
  process.exit(exitCode);
};
