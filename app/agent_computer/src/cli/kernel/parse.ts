import { type $ZodError, safeParse } from "zod/v4/core";
import { AppError } from "../../errors.ts";
import { argvToRaw } from "./argv-tokens.ts";
import type { CommandDef } from "./command.ts";

const flagName = (spec: string): string => spec.split(/[ ,]/)[0] ?? spec;

/** A plain token is shown as typed; anything with spaces, quotes or control characters JSON-quoted (and so escaped). */
const describeInput = (input: unknown): string => {
  const text = typeof input === "string" && /^[\x21-\x7e]+$/.test(input) && !input.includes('"') ? input : JSON.stringify(input);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

/**
 * The one place a ZodError becomes "--flag: what is wrong (got …)" lines. "got" shows what the user typed
 * (before coercion), never a whole options object.
 */
export const zodIssuesToMessage = (def: CommandDef, error: $ZodError, raw: Record<string, unknown>): string =>
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
  const parsed = safeParse(def.schema, raw);
  if (!parsed.success) throw new AppError("INVALID_INPUT", zodIssuesToMessage(def, parsed.error, raw));
  return parsed.data;
};
