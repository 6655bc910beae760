import { toJSONSchema } from "zod/v4/core";
import { ERROR_CODES, type ErrorCode, EXIT_CODE_TABLE, STORE_ERRORS } from "../../errors.ts";
import type { BinaryDef, CommandDef } from "./command.ts";
import { ENV_DOCS, type EnvName } from "./env-docs.ts";
import { commandFlags, flagSyntax } from "./flags.ts";

interface PropertyDoc {
  type?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  items?: PropertyDoc;
  anyOf?: PropertyDoc[];
}

interface SchemaDoc {
  properties: Record<string, PropertyDoc>;
  required: Set<string>;
}

const docs = new WeakMap<CommandDef, SchemaDoc>();

/** A command's schema as JSON Schema (input side), converted once per command however many sections ask. */
const schemaDoc = (def: CommandDef): SchemaDoc => {
  let doc = docs.get(def);
  if (!doc) {
    const json = toJSONSchema(def.schema, { io: "input", unrepresentable: "any" }) as {
      properties?: Record<string, PropertyDoc>;
      required?: string[];
    };
    doc = { properties: json.properties ?? {}, required: new Set(json.required ?? []) };
    docs.set(def, doc);
  }
  return doc;
};

/** The documented properties of a command's schema. */
export const schemaProperties = (def: CommandDef): Record<string, PropertyDoc> => schemaDoc(def).properties;

/** An integer flag takes decimal digits only (kernel/parse.ts): no 0x10, 1e3, +5 or 5.0. */
const typeText = (type: string): string => (type === "integer" ? "decimal integer" : type);

const constraintText = (doc: PropertyDoc): string => {
  const base = doc.anyOf?.find((d) => d.type !== "null") ?? doc;
  const parts: string[] = [];
  const item = base.items;
  if (base.type === "array" && item)
    parts.push(`list of ${typeText(item.type ?? "value")}${item.pattern ? ` /${item.pattern}/` : ""}`);
  else if (base.enum) parts.push(`one of ${base.enum.join("|")}`);
  else if (base.type) parts.push(typeText(base.type));
  if (base.minimum !== undefined && base.maximum !== undefined) parts.push(`${base.minimum}..${base.maximum}`);
  else if (base.minimum !== undefined) parts.push(`>= ${base.minimum}`);
  else if (base.maximum !== undefined) parts.push(`<= ${base.maximum}`);
  if (base.maxLength !== undefined) parts.push(`max ${base.maxLength} chars`);
  if (base.pattern && base.type !== "array") parts.push(`/${base.pattern}/`);
  const fallback = doc.default ?? base.default;
  if (fallback !== undefined) parts.push(`default ${JSON.stringify(fallback)}`);
  return parts.join(", ");
};

const wrap = (text: string, indent: string, width = 100): string => {
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    // A line indented by two spaces is preformatted (a command to copy): never re-wrapped.
    if (paragraph.startsWith("  ")) {
      out.push(indent + paragraph);
      continue;
    }
    let line = "";
    for (const word of paragraph.split(" ")) {
      if (line && `${indent}${line} ${word}`.length > width) {
        out.push(indent + line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    out.push(indent + line);
  }
  return out.join("\n");
};

/** Option lines: flag and aliases, constraints from the schema, and the schema's description. */
export const optionLines = (def: CommandDef): string[] => {
  const { properties: props, required } = schemaDoc(def);
  const lines: string[] = [];
  for (const arg of def.args ?? []) {
    lines.push(`  ${arg.name}  (required) ${props[arg.key]?.description ?? ""}`.trimEnd());
  }
  if (def.rest) lines.push(`  -- ${def.rest.name}  ${props[def.rest.key]?.description ?? ""}`.trimEnd());
  for (const flag of commandFlags(def)) {
    const doc = props[flag.key] ?? {};
    const req = required.has(flag.key) && doc.default === undefined ? "(required) " : "";
    const rep = flag.list ? (flag.commaList ? "; repeatable or comma list" : "; repeatable") : "";
    lines.push(`  ${flagSyntax(flag)}`);
    lines.push(wrap(`${req}[${constraintText(doc)}${rep}] ${doc.description ?? ""}`.trim(), "      "));
  }
  lines.push("  --json", '      Print exactly one JSON document on stdout; errors as {"error":{code,message,hint}} on stderr.');
  lines.push("  -h, --help", "      Print this contract (anywhere in argv except as an option's value; needs no store).");
  lines.push("  -V, --version", "      Print the version of agent-computer.");
  return lines;
};

const section = (title: string, body: string): string => `${title}\n${body}`;

const isRequired = (def: CommandDef, key: string): boolean => {
  const { properties: props, required } = schemaDoc(def);
  return required.has(key) && props[key]?.default === undefined;
};

/** The full usage line of the contract: every flag, optional ones in brackets. */
export const usageLine = (def: CommandDef): string => {
  const parts = [def.name, ...(def.args ?? []).map((a) => a.name)];
  for (const flag of commandFlags(def)) {
    const syntax = [flag.name, flag.placeholder].filter(Boolean).join(" ");
    parts.push(isRequired(def, flag.key) ? syntax : `[${syntax}]`);
  }
  parts.push("[--json]");
  if (def.rest) parts.push(`-- ${def.rest.name}`);
  return parts.join(" ");
};

/** The short usage an argument error prints: the required flags, then [options]. */
export const shortUsage = (def: CommandDef): string => {
  const parts = [def.name, ...(def.args ?? []).map((a) => a.name)];
  for (const flag of commandFlags(def)) {
    if (isRequired(def, flag.key)) parts.push([flag.name, flag.placeholder].filter(Boolean).join(" "));
  }
  parts.push("[options]");
  if (def.rest) parts.push(`[-- ${def.rest.name}]`);
  return parts.join(" ");
};

export const envLines = (names: readonly string[]): string =>
  names.map((name) => wrap(`${name}: ${ENV_DOCS[name as EnvName] ?? ""}`, "  ")).join("\n");

export const renderCommandHelp = (def: CommandDef): string =>
  [
    wrap(`${def.name} — ${def.summary}`, ""),
    "",
    wrap(def.description, ""),
    "",
    section("Usage:", `  ${usageLine(def)}`),
    "",
    section("Options:", optionLines(def).join("\n")),
    "",
    section("Environment:", envLines(def.env)),
    "",
    section("Writes:", wrap(def.writes, "  ")),
    "",
    section("Output (--json):", wrap(def.output, "  ")),
    "",
    section("Errors (code, exit):", errorLines(def.errors)),
    "",
    section("Exit codes:", wrap(EXIT_CODE_TABLE, "  ")),
    "",
    section("Examples:", def.examples.map((e) => `  ${e}`).join("\n")),
    "",
  ].join("\n");

/**
 * A command's own errors one per line with their meaning; the store and environment errors every store-opening
 * command shares (STORE_ERRORS) in one closing line, so they cost each help a line instead of six.
 */
const errorLines = (codes: readonly ErrorCode[]): string => {
  const shared = codes.filter((c) => (STORE_ERRORS as readonly string[]).includes(c));
  const own = codes.filter((c) => !shared.includes(c));
  const lines = own.map((c) => `  ${c} (${ERROR_CODES[c].exit}): ${ERROR_CODES[c].meaning}`);
  if (shared.length > 0) {
    const byExit = (exit: number, what: string) => {
      const group = shared.filter((c) => ERROR_CODES[c].exit === exit);
      return group.length > 0 ? [`${group.join(", ")} (${exit}: ${what})`] : [];
    };
    const text = [...byExit(8, "retry"), ...byExit(2, "fix the environment")].join("; ");
    lines.splice(
      own.includes("INTERNAL") ? own.indexOf("INTERNAL") : lines.length,
      0,
      ...wrap(`store, environment: ${text}; the message says what to do`, "  ").split("\n"),
    );
  }
  return lines.join("\n");
};

export const renderBinaryHelp = async (binary: BinaryDef): Promise<string> => {
  if (binary.command) return renderCommandHelp(binary.command);
  const subs = Object.entries(binary.subcommands ?? {});
  const blocks: string[] = [];
  for (const [, load] of subs) {
    const def = await load();
    blocks.push(`  ${usageLine(def)}\n${wrap(def.summary, "      ")}`);
  }
  return [
    wrap(`${binary.name} — ${binary.summary}`, ""),
    "",
    wrap(binary.description ?? "", ""),
    "",
    section(`Subcommands (each has its full contract: ${binary.name} help <subcommand>):`, blocks.join("\n")),
    "",
    section("Environment:", envLines(binary.env ?? [])),
    "",
    section("Exit codes:", wrap(EXIT_CODE_TABLE, "  ")),
    "",
    section("Examples:", (binary.examples ?? []).map((e) => `  ${e}`).join("\n")),
    "",
  ].join("\n");
};
