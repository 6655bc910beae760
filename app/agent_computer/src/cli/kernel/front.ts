// The argv front end of every binary: one commander program per binary, subcommands as commander subcommands
// ("controller acquire" is a `controller` command with an `acquire` subcommand). commander decides what each word is
// (option, option value, subcommand, positional, -h/--help, -V/--version); zod then validates the values (parse.ts).
// A subcommand's module is imported only when argv names it, so no other command's schema is ever built.
// commander never prints or exits here: help, version and every usage error come back to kernel/run-binary.ts.

import { Command, type ErrorOptions, type HelpContext, Option } from "commander";
import { AppError } from "../../errors.ts";
import { neutralizeLine } from "../../terminal-text.ts";
import type { BinaryDef, CommandDef } from "./command.ts";
import { didYouMean } from "./did-you-mean.ts";
import { commandFlags, type Flag, numberKeys } from "./flags.ts";
import { validateOptions } from "./parse.ts";

/** What argv asks for. `subcommand` is a key of binary.subcommands; undefined means the binary's own help. */
export type Invocation =
  | { kind: "run"; def: CommandDef; options: unknown }
  | { kind: "help"; subcommand: string | undefined }
  | { kind: "completion"; shell: string | undefined }
  | { kind: "version" };

/** The word every binary answers with a shell completion script (kernel/completion/script.ts). */
export const COMPLETION = "completion";

/** Ends parsing early with the answer (help, version), instead of commander's own print-and-exit. */
class Answer {
  constructor(readonly invocation: Invocation) {}
}

const commaItems = (value: string): string[] =>
  value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

class KernelCommand extends Command {
  /** The subcommand words that lead here ([] for the program itself). */
  words: string[] = [];
  /** Full subcommand keys reachable from here, for "unknown subcommand" answers. */
  choices: string[] = [];

  constructor(name?: string) {
    super(name);
    this.enablePositionalOptions().helpCommand(false).exitOverride();
    this.addOption(new Option("-V, --version"));
    this.addOption(new Option("--json"));
    this.on("option:version", () => {
      throw new Answer({ kind: "version" });
    });
  }

  override createCommand(name?: string): KernelCommand {
    const child = new KernelCommand(name);
    child.words = [...this.words, name ?? ""];
    child.choices = this.choices;
    return child;
  }

  /** commander asks for help here on -h/--help, and with error=true when a subcommand is missing. */
  override outputHelp(context?: HelpContext | ((text: string) => string)): void {
    if (typeof context === "object" && context.error) throw this.unknownSubcommand(undefined);
    if (this.words[0] === COMPLETION) throw new Answer({ kind: "help", subcommand: COMPLETION });
    const key = this.words.join(" ");
    throw new Answer({ kind: "help", subcommand: this.choices.includes(key) ? key : undefined });
  }

  override error(message: string, options?: ErrorOptions): never {
    if (options?.code === "commander.unknownCommand") throw this.unknownSubcommand(this.args[0]);
    if (options?.code === "commander.excessArguments") {
      const extra = this.args.slice(this.registeredArguments.length).join(" ");
      throw new AppError("INVALID_INPUT", `unexpected argument: ${neutralizeLine(extra)}`);
    }
    const missing = options?.code === "commander.optionMissingArgument" ? /'(--?[\w-]+)/.exec(message)?.[1] : undefined;
    throw new AppError("INVALID_INPUT", missing ? `${missing}: needs a value` : message.replace(/^error: /, ""));
  }

  /** Called by commander for an option this command does not have; suggests only spellings it does have. */
  unknownOption(flag: string): never {
    const eq = flag.indexOf("=");
    const name = eq > 0 ? flag.slice(0, eq) : flag;
    if (eq > 0 && this.options.some((o) => o.long === name || o.short === name)) {
      throw new AppError("INVALID_INPUT", `option '${name}' takes no value (got ${neutralizeLine(flag)})`);
    }
    const spellings = this.options.map((o) => o.long ?? "").filter((s) => s.startsWith("--") && s !== "--version");
    const hint = flag.startsWith("--") ? didYouMean(name, [...spellings, "--help"]) : "";
    throw new AppError("INVALID_INPUT", `unknown option '${neutralizeLine(flag)}'${hint}`);
  }

  unknownSubcommand(given: string | undefined): AppError {
    const prefix = this.words.length > 0 ? `${this.words.join(" ")} ` : "";
    const valid = this.choices.filter((key) => key.startsWith(prefix));
    const what = given === undefined ? "a subcommand is required" : `unknown subcommand '${neutralizeLine(given)}'`;
    return new AppError("INVALID_INPUT", `${what}; valid: ${valid.join(", ")}${given ? didYouMean(given, valid) : ""}`);
  }
}

/**
 * The raw object the schema validates: each flag's value under its key, aliases merged onto it. `lists` holds the
 * values of repeatable flags in argv order, whichever spelling gave them.
 */
const rawOptions = (
  command: KernelCommand,
  def: CommandDef,
  flags: readonly Flag[],
  lists: Map<string, string[]>,
  spelled: Map<string, string>,
): Record<string, unknown> => {
  const values = command.opts();
  const raw: Record<string, unknown> = {};
  for (const flag of flags) {
    if (flag.list) {
      if (lists.has(flag.key)) raw[flag.key] = lists.get(flag.key);
      continue;
    }
    const given = [flag.name, ...flag.aliases]
      .map((spelled) => ({ spelled, value: values[attributeOf(command, spelled)] as unknown }))
      .filter((g) => g.value !== undefined);
    const first = given[0];
    if (!first) continue;
    const other = given.find((g) => g.value !== first.value);
    if (other) {
      throw new AppError(
        "INVALID_INPUT",
        `${first.spelled} and ${other.spelled} are the same flag and differ ` +
          `(got ${neutralizeLine(String(first.value))} and ${neutralizeLine(String(other.value))}); give one`,
      );
    }
    raw[flag.key] = first.value;
    spelled.set(flag.key, first.spelled);
  }
  const positionals = command.processedArgs as (string | string[] | undefined)[];
  (def.args ?? []).forEach((arg, i) => {
    if (positionals[i] !== undefined) raw[arg.key] = positionals[i];
  });
  const rest = positionals[def.args?.length ?? 0];
  if (def.rest && Array.isArray(rest) && rest.length > 0) raw[def.rest.key] = rest.join(" ");
  return raw;
};

/** commander's name for the value of the option spelled so: --agent-id is agentId. */
const attributeOf = (command: Command, spelled: string): string =>
  command.options.find((o) => o.long === spelled)?.attributeName() ?? spelled;

/** Gives a command the flags, positionals and action of one CommandDef. */
const configureLeaf = (command: KernelCommand, def: CommandDef, done: (run: Invocation) => void): void => {
  const flags = commandFlags(def);
  const numbers = numberKeys(def);
  const lists = new Map<string, string[]>();
  /** The spelling each key was given with, so an error names the flag as the user typed it. */
  const spelled = new Map<string, string>();
  for (const flag of flags) {
    for (const spelledAs of [flag.name, ...flag.aliases]) {
      // commander only needs to know whether a value follows; the real placeholder is for help, which is ours.
      const option = new Option(flag.placeholder ? `${spelledAs} <value>` : spelledAs);
      if (flag.list) {
        option.argParser((value: string) => {
          spelled.set(flag.key, spelledAs);
          const list = lists.get(flag.key) ?? [];
          // Numbers are kept as typed ("5, 6" has " 6"; "5,,6" an empty one), for parse.ts to refuse.
          list.push(...(!flag.commaList ? [value] : numbers.has(flag.key) ? value.split(",") : commaItems(value)));
          lists.set(flag.key, list);
          return list;
        });
      }
      command.addOption(option);
    }
  }
  for (const arg of def.args ?? []) command.argument(`[${arg.name}]`);
  if (def.rest) command.argument(`[${def.rest.name}...]`);
  command.action(() => {
    done({ kind: "run", def, options: validateOptions(def, rawOptions(command, def, flags, lists, spelled), spelled) });
  });
};

/**
 * argv (without the binary name) to what it asks for. Throws AppError INVALID_INPUT for a usage error; `onCommand`
 * learns which command is parsing, so the error can carry that command's usage.
 */
export const parseArgv = async (
  binary: BinaryDef,
  argv: readonly string[],
  onCommand: (def: CommandDef) => void = () => {},
): Promise<Invocation> => {
  let outcome: Invocation | undefined;
  const done = (run: Invocation): void => {
    outcome = run;
  };
  const program = new KernelCommand(binary.name);
  const loaders = new Map<Command, () => Promise<CommandDef>>();
  const subcommands = binary.subcommands ?? {};
  program.choices = Object.keys(subcommands);
  if (binary.command) {
    onCommand(binary.command);
    configureLeaf(program, binary.command, done);
  }
  for (const [key, load] of Object.entries(subcommands)) {
    let at: KernelCommand = program;
    for (const word of key.split(" ")) {
      const found = at.commands.find((c) => c.name() === word) as KernelCommand | undefined;
      at = found ?? (at.command(word) as KernelCommand);
    }
    loaders.set(at, load);
  }
  const loadLeaf = async (_parent: Command, sub: Command): Promise<void> => {
    const load = loaders.get(sub);
    if (!load) return;
    const def = await load();
    onCommand(def);
    configureLeaf(sub as KernelCommand, def, done);
  };
  const hookGroups = (command: Command): void => {
    if (command.commands.length === 0) return;
    command.hook("preSubcommand", loadLeaf);
    for (const sub of command.commands) hookGroups(sub);
  };
  hookGroups(program);
  program
    .command("help")
    .argument("[subcommand...]")
    .action((words: string[]) => {
      const key = words.join(" ");
      if (words.length > 0 && !(key in subcommands) && key !== COMPLETION) throw program.unknownSubcommand(key);
      done({ kind: "help", subcommand: words.length > 0 ? key : undefined });
    });
  program
    .command(COMPLETION)
    .argument("[shell]")
    .action((shell: string | undefined) => {
      done({ kind: "completion", shell });
    });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (error instanceof Answer) return error.invocation;
    throw error;
  }
  if (!outcome) throw program.unknownSubcommand(undefined);
  return outcome;
};
