import { type $ZodError, type $ZodRawIssue, safeParse } from "zod/v4/core";
import { AppError } from "../../errors.ts";
import type { CommandDef } from "./command.ts";
import { flagLabel, type NumberKind, numberKeys } from "./flags.ts";

/** A plain token is shown as typed; anything with spaces, quotes or control characters JSON-quoted (and so escaped). */
const describeInput = (input: unknown): string => {
  const text = typeof input === "string" && /^[\x21-\x7e]+$/.test(input) && !input.includes('"') ? input : JSON.stringify(input);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

const UNITS: Record<string, string> = { string: "characters", array: "values", set: "values" };

/**
 * Our wording for zod's generic issues ("must be >= 1", not "Too small: expected number to be >=1"). A message a
 * schema sets itself (e.g. a regex's "must be a task id (task_…)") takes precedence over this.
 */
const userMessage = (issue: $ZodRawIssue): string | undefined => {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "int" ? "must be a whole number" : `must be a ${issue.expected}`;
    case "too_small": {
      const unit = UNITS[issue.origin];
      if (!unit) return `must be ${issue.inclusive ? ">=" : ">"} ${issue.minimum}`;
      return issue.origin === "string" && Number(issue.minimum) === 1
        ? "must not be empty"
        : `must have at least ${issue.minimum} ${unit}`;
    }
    case "too_big": {
      const unit = UNITS[issue.origin];
      return unit ? `must have at most ${issue.maximum} ${unit}` : `must be ${issue.inclusive ? "<=" : "<"} ${issue.maximum}`;
    }
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join("|")}`;
    case "invalid_format":
      return issue.format === "regex" && issue.pattern ? `must match ${issue.pattern}` : `must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    default:
      return undefined;
  }
};

/** The flag (as typed), positional or rest argument a schema key was given as. */
const labelOf = (def: CommandDef, key: string, spelled: ReadonlyMap<string, string>): string => {
  const arg = def.args?.find((a) => a.key === key);
  return (
    spelled.get(key) ??
    flagLabel(def, key) ??
    (arg ? arg.name : def.rest?.key === key ? def.rest.name : key ? `--${key}` : "input")
  );
};

/**
 * The one place a ZodError becomes "--flag: what is wrong (got …)" lines. "got" shows what the user typed
 * (before coercion), never a whole options object.
 */
export const zodIssuesToMessage = (
  def: CommandDef,
  error: $ZodError,
  raw: Record<string, unknown>,
  spelled: ReadonlyMap<string, string> = new Map(),
  include: (issue: $ZodError["issues"][number]) => boolean = () => true,
): string =>
  error.issues
    .filter(include)
    .map((issue) => {
      const key = String(issue.path[0] ?? "");
      const label = labelOf(def, key, spelled);
      const typed = key ? raw[key] : undefined;
      if (typed === undefined && issue.code !== "custom") return `${label}: is required`;
      const got = typed !== undefined && typeof typed !== "boolean" ? ` (got ${describeInput(typed)})` : "";
      return `${label}: ${issue.message}${issue.code === "custom" ? "" : got}`;
    })
    .join("\n");

/**
 * The text a number takes, as a person writes it in decimal: zod's coercion (JavaScript's Number) would also take
 * "0x10", "1e3", " 5 ", "+5", "5.0" and "-0", and turn "" into 0. Leading zeros are refused too ("010" is 8 to C
 * and to the shell).
 */
const INTEGER_TEXT = /^(0|-?[1-9][0-9]*)$/;
const DECIMAL_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** What is wrong with the text of one number, or undefined. */
const numberTextProblem = (text: string, kind: NumberKind): string | undefined => {
  if (!kind.integer) return DECIMAL_TEXT.test(text) ? undefined : "must be a decimal number, e.g. 2.5";
  if (!INTEGER_TEXT.test(text)) return "must be a whole number in decimal digits, e.g. 5";
  // Past 2^53 a number is no longer exact: say the flag's own bound, not JavaScript's.
  if (!Number.isSafeInteger(Number(text))) return `must be <= ${kind.max ?? Number.MAX_SAFE_INTEGER}`;
  return undefined;
};

/** "--flag: must be … (got …)" for each number given in any other form; zod's issues for these keys are dropped. */
const numberTextProblems = (
  def: CommandDef,
  raw: Record<string, unknown>,
  label: (key: string) => string,
): Map<string, string> => {
  const problems = new Map<string, string>();
  for (const [key, kind] of numberKeys(def)) {
    const values = Array.isArray(raw[key]) ? (raw[key] as unknown[]) : [raw[key]];
    for (const value of values) {
      const problem = typeof value === "string" ? numberTextProblem(value, kind) : undefined;
      if (problem) {
        problems.set(key, `${label(key)}: ${problem} (got ${describeInput(value)})`);
        break;
      }
    }
  }
  return problems;
};

/** Validates the raw values the front end collected; a rejected call names each wrong flag as it was typed. */
export const validateOptions = (
  def: CommandDef,
  raw: Record<string, unknown>,
  spelled: ReadonlyMap<string, string> = new Map(),
): unknown => {
  const numbers = numberTextProblems(def, raw, (key) => labelOf(def, key, spelled));
  const parsed = safeParse(def.schema, raw, { error: userMessage });
  if (parsed.success && numbers.size === 0) return parsed.data;
  const others = parsed.success
    ? ""
    : zodIssuesToMessage(def, parsed.error, raw, spelled, (issue) => !numbers.has(String(issue.path[0] ?? "")));
  throw new AppError("INVALID_INPUT", [...numbers.values(), ...(others ? [others] : [])].join("\n"));
};
