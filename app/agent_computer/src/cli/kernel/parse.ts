import { Command, CommanderError, Option } from "commander";
import type { z } from "zod";
import { splitRest } from "./argv.ts";
import type { CommandDef } from "./command.ts";
import { CliError } from "./errors.ts";

const camel = (flag: string): string => flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
const flagName = (spec: string): string => spec.split(/[ ,]/)[0] ?? spec;

const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  ...value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== ""),
];

const appendWhole = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** argv (without the binary and subcommand words) to the raw object the schema validates. */
export const argvToRaw = (def: CommandDef, argv: readonly string[]): Record<string, unknown> => {
  const { head, rest } = splitRest(argv);
  const program = new Command(def.name)
    .exitOverride()
    .helpOption(false)
    .allowExcessArguments(true)
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  for (const [key, spec] of Object.entries(def.flags)) {
    const option = new Option(spec.flag);
    option.attributeName = () => key;
    if (spec.repeatable) option.argParser(spec.commaList === false ? appendWhole : collect);
    program.addOption(option);
  }
  program.option("--json");
  for (const arg of def.args ?? []) program.argument(`[${arg.key}]`);
  try {
    program.parse(head, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      const message = error.message.replace(/^error: /, "");
      throw new CliError("INVALID_INPUT", message);
    }
    throw error;
  }
  const excess = program.args.slice((def.args ?? []).length);
  if (excess.length > 0) throw new CliError("INVALID_INPUT", `unexpected argument: ${excess.join(" ")}`);
  const raw: Record<string, unknown> = { ...program.opts() };
  delete raw.json;
  (def.args ?? []).forEach((arg, i) => {
    if (program.args[i] !== undefined) raw[arg.key] = program.args[i];
  });
  if (def.rest && rest !== undefined) raw[def.rest.key] = rest.join(" ");
  else if (rest !== undefined && rest.length > 0)
    throw new CliError("INVALID_INPUT", `unexpected arguments after --: ${rest.join(" ")}`);
  return raw;
};

/** A plain token is shown as typed; anything with spaces, quotes or control characters JSON-quoted (and so escaped). */
const describeInput = (input: unknown): string => {
  const text = typeof input === "string" && /^[\x21-\x7e]+$/.test(input) && !input.includes('"') ? input : JSON.stringify(input);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

/**
 * The one place a ZodError becomes "--flag: what is wrong (got …)" lines. "got" shows what the user typed
 * (before coercion), never a whole options object.
 */
export const zodIssuesToMessage = (def: CommandDef, error: z.ZodError, raw: Record<string, unknown>): string =>
  error.issues
    .map((issue) => {
      const key = String(issue.path[0] ?? "");
      const spec = def.flags[key];
      const arg = def.args?.find((a) => a.key === key);
      const label = spec ? flagName(spec.flag) : arg ? arg.name : def.rest?.key === key ? def.rest.name : key || "input";
      const typed = key ? raw[key] : undefined;
      if (typed === undefined && issue.code === "invalid_type") return `${label}: is required`;
      const got = typed !== undefined && typeof typed !== "boolean" ? ` (got ${describeInput(typed)})` : "";
      return `${label}: ${issue.message}${issue.code === "custom" ? "" : got}`;
    })
    .join("\n");

export const parseOptions = (def: CommandDef, argv: readonly string[]): unknown => {
  const raw = argvToRaw(def, argv);
  const parsed = def.schema.safeParse(raw);
  if (!parsed.success) throw new CliError("INVALID_INPUT", zodIssuesToMessage(def, parsed.error, raw));
  return parsed.data;
};

export { camel as flagToKey };
