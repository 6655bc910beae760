import { type $ZodError, type $ZodRawIssue, safeParse } from "zod/v4/core";
import { AppError } from "../../errors.ts";
import type { CommandDef } from "./command.ts";
import { flagLabel } from "./flags.ts";

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

/**
 * The one place a ZodError becomes "--flag: what is wrong (got …)" lines. "got" shows what the user typed
 * (before coercion), never a whole options object.
 */
export const zodIssuesToMessage = (
  def: CommandDef,
  error: $ZodError,
  raw: Record<string, unknown>,
  spelled: ReadonlyMap<string, string> = new Map(),
): string =>
  error.issues
    .map((issue) => {
      const key = String(issue.path[0] ?? "");
      const arg = def.args?.find((a) => a.key === key);
      const label =
        spelled.get(key) ??
        flagLabel(def, key) ??
        (arg ? arg.name : def.rest?.key === key ? def.rest.name : key ? `--${key}` : "input");
      const typed = key ? raw[key] : undefined;
      if (typed === undefined && issue.code !== "custom") return `${label}: is required`;
      const got = typed !== undefined && typeof typed !== "boolean" ? ` (got ${describeInput(typed)})` : "";
      return `${label}: ${issue.message}${issue.code === "custom" ? "" : got}`;
    })
    .join("\n");

/** Validates the raw values the front end collected; a rejected call names each wrong flag as it was typed. */
export const validateOptions = (
  def: CommandDef,
  raw: Record<string, unknown>,
  spelled: ReadonlyMap<string, string> = new Map(),
): unknown => {
  const parsed = safeParse(def.schema, raw, { error: userMessage });
  if (!parsed.success) throw new AppError("INVALID_INPUT", zodIssuesToMessage(def, parsed.error, raw, spelled));
  return parsed.data;
};
