import { AppError, EXIT, isAppError } from "../../errors.ts";
import { resolvePaths } from "../../paths.ts";
import type { StoreUse } from "../../store/open.ts";
import type { Store } from "../../store/port.ts";
import { wantsHelp, wantsJson } from "./argv.ts";
import type { BinaryDef, CommandDef } from "./command.ts";
import type { CommandContext } from "./context.ts";
import { toJson, writeStderr, writeStdout } from "./output.ts";
import { reachedPhase } from "./startup-phase.ts";

/** Picks the subcommand whose words start argv; for help, stray leading words are tolerated. */
const matchSubcommand = (binary: BinaryDef, argv: readonly string[]): { key: string; rest: string[] } | undefined => {
  const keys = Object.keys(binary.subcommands ?? {}).sort((a, b) => b.split(" ").length - a.split(" ").length);
  for (const key of keys) {
    const words = key.split(" ");
    if (words.every((w, i) => argv[i] === w)) return { key, rest: argv.slice(words.length) };
  }
  return undefined;
};

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

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
    readStdin,
    closeStore: async () => {
      if (opened) await (await opened.catch(() => undefined))?.close();
    },
  };
};

const usageHint = async (binary: BinaryDef, def: CommandDef | undefined): Promise<string> => {
  if (!def) return `see ${binary.name} --help`;
  const { usageLine } = await import("./help.ts");
  return `usage: ${usageLine(def)}\nsee ${def.name} --help`;
};

const reportError = async (binary: BinaryDef, def: CommandDef | undefined, error: unknown, json: boolean): Promise<number> => {
  const cliError = isAppError(error)
    ? error
    : new AppError("INTERNAL", error instanceof Error ? error.message : String(error), {
        hint: "this is a bug; set AGENT_COMPUTER_DEBUG=1 for a stack trace",
      });
  if (!isAppError(error) && process.env.AGENT_COMPUTER_DEBUG === "1" && error instanceof Error) {
    await writeStderr(`${error.stack}\n`);
  }
  if (json) {
    await writeStderr(`${JSON.stringify(cliError.toJSON())}\n`);
  } else {
    const lines = [`${def?.name ?? binary.name}: ${cliError.code}: ${cliError.message}`];
    if (cliError.code === "INVALID_INPUT") lines.push(await usageHint(binary, def));
    else if (cliError.hint) lines.push(`hint: ${cliError.hint}`);
    await writeStderr(`${lines.join("\n")}\n`);
  }
  return cliError.exitCode;
};

/** The single entry point of every binary: help, parse, run, render, exit. `use` says how it uses the store. */
export const runBinary = async (binary: BinaryDef, argv: readonly string[], use: StoreUse = {}): Promise<never> => {
  const json = wantsJson(argv);
  let def: CommandDef | undefined = binary.command;
  let rest: readonly string[] = argv;
  const ctx = createContext(process.env, use);
  let exitCode: number = EXIT.ok;
  try {
    if (binary.subcommands) {
      const match = matchSubcommand(binary, argv);
      if (match) {
        def = await binary.subcommands[match.key]?.();
        rest = match.rest;
      } else if (!wantsHelp(argv)) {
        const given = argv.find((a) => !a.startsWith("-"));
        throw new AppError("INVALID_INPUT", given ? `unknown subcommand: ${given}` : "a subcommand is required");
      }
    }
    if (wantsHelp(argv)) {
      const { renderBinaryHelp, renderCommandHelp } = await import("./help.ts");
      await writeStdout(def ? renderCommandHelp(def) : await renderBinaryHelp(binary));
    } else if (def) {
      const { parseOptions } = await import("./parse.ts");
      const options = parseOptions(def, rest) as never;
      const result = await def.run(options, ctx);
      reachedPhase("command-run");
      const text = json ? `${toJson(result)}\n` : def.render(result, options);
      await writeStdout(text.endsWith("\n") || text === "" ? text : `${text}\n`);
    }
  } catch (error) {
    exitCode = await reportError(binary, def, error, json);
  }
  await ctx.closeStore().catch(() => undefined);
  process.exit(exitCode);
};
