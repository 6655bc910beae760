// A command's flags, derived from its schema keys: `agentId` is `--agent-id`, a boolean takes no value, an array is
// repeatable and splits comma lists. def.flags holds only what differs (a placeholder, aliases, whole list values).
// Reads zod's own definition tree (`_zod.def`, shared by zod and zod/mini), so no schema is converted to find a flag.

import type { CommandDef } from "./command.ts";

/** One flag as the front end parses it and help prints it. */
export interface Flag {
  /** The schema key the value lands in. */
  key: string;
  /** The canonical spelling, e.g. "--agent-id". */
  name: string;
  /** Other accepted spellings, e.g. ["--name"]. */
  aliases: readonly string[];
  /** The value's placeholder, e.g. "<id>"; undefined for a boolean flag, which takes no value. */
  placeholder: string | undefined;
  /** Repeatable: each use adds to a list. */
  list: boolean;
  /** With list: a value "a,b" adds two items. */
  commaList: boolean;
}

interface ZodNode {
  _zod: {
    def: {
      type: string;
      innerType?: ZodNode;
      in?: ZodNode;
      element?: ZodNode;
      shape?: Record<string, ZodNode>;
      entries?: Record<string, string | number>;
      checks?: { _zod: { def: { check?: string; format?: string; value?: unknown; inclusive?: boolean } } }[];
    };
  };
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"]);

/** The type under optional/default/pipe wrappers: what the user actually types. */
const base = (node: ZodNode): ZodNode => {
  let current = node;
  for (;;) {
    const def = current._zod.def;
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else return current;
  }
};

/** The properties of a command's options object (a refined or transformed object is still that object). */
export const schemaShape = (def: CommandDef): Record<string, ZodNode> =>
  base(def.schema as unknown as ZodNode)._zod.def.shape ?? {};

export const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const TEXT = "<text>";
const PATH = "<path>";
/** Placeholders by the key's last word: what the value is, where the word alone says too little. */
const BY_LAST_WORD: Record<string, string> = {
  id: "<id>",
  seconds: "<seconds>",
  ms: "<ms>",
  bytes: "<bytes>",
  file: PATH,
  dir: PATH,
  path: PATH,
  cwd: PATH,
  worktree: PATH,
  sha256: "<hex>",
  head: "<sha>",
  commit: "<sha>",
  pid: "<pid>",
  pids: "<pid>",
  port: "<port>",
  caps: "<cap>",
  capabilities: "<cap>",
  body: TEXT,
  title: TEXT,
  label: TEXT,
  note: TEXT,
  purpose: TEXT,
  description: TEXT,
  status: TEXT,
  result: TEXT,
  reason: TEXT,
};

/** "<id>" for agentId, "<seconds>" for ttlSeconds, "<mine|all>" for a short enum, "<n>" for another number. */
const derivedPlaceholder = (key: string, node: ZodNode): string => {
  const last = kebab(key).split("-").at(-1) ?? key;
  const entries = node._zod.def.entries;
  if (node._zod.def.type === "enum" && entries) {
    const choices = Object.values(entries).join("|");
    return choices.length <= 30 ? `<${choices}>` : `<${last}>`;
  }
  return BY_LAST_WORD[last] ?? (node._zod.def.type === "number" ? "<n>" : `<${last}>`);
};

/** What a number-typed key accepts; the front end hands every value over as the text the user typed. */
export interface NumberKind {
  integer: boolean;
  /** The inclusive upper bound the schema sets, if any. */
  max: number | undefined;
}

const INTEGER_FORMATS = new Set(["safeint", "int32", "uint32", "int64", "uint64"]);

const numberKindOf = (node: ZodNode): NumberKind | undefined => {
  const type = base(node);
  const item = type._zod.def.type === "array" && type._zod.def.element ? base(type._zod.def.element) : type;
  if (item._zod.def.type !== "number") return undefined;
  const checks = (item._zod.def.checks ?? []).map((c) => c._zod.def);
  const below = checks.find((c) => c.check === "less_than" && c.inclusive && typeof c.value === "number");
  return {
    integer: checks.some((c) => INTEGER_FORMATS.has(c.format ?? "")),
    max: below?.value as number | undefined,
  };
};

const numberCache = new WeakMap<CommandDef, ReadonlyMap<string, NumberKind>>();

/** Every schema key (flag or positional) that takes a number or a list of numbers, with the kind of number. */
export const numberKeys = (def: CommandDef): ReadonlyMap<string, NumberKind> => {
  let found = numberCache.get(def);
  if (!found) {
    const kinds = new Map<string, NumberKind>();
    for (const [key, node] of Object.entries(schemaShape(def))) {
      const kind = numberKindOf(node);
      if (kind) kinds.set(key, kind);
    }
    found = kinds;
    numberCache.set(def, found);
  }
  return found;
};

const cache = new WeakMap<CommandDef, readonly Flag[]>();

export const commandFlags = (def: CommandDef): readonly Flag[] => {
  const cached = cache.get(def);
  if (cached) return cached;
  const positional = new Set([...(def.args ?? []).map((a) => a.key), def.rest?.key]);
  const flags: Flag[] = [];
  for (const [key, node] of Object.entries(schemaShape(def))) {
    if (positional.has(key)) continue;
    const override = def.flags?.[key] ?? {};
    const type = base(node);
    const list = type._zod.def.type === "array";
    const item = list && type._zod.def.element ? base(type._zod.def.element) : type;
    flags.push({
      key,
      name: `--${kebab(key)}`,
      aliases: override.aliases ?? [],
      placeholder: item._zod.def.type === "boolean" ? undefined : (override.placeholder ?? derivedPlaceholder(key, item)),
      list,
      commaList: list && override.commaList !== false,
    });
  }
  cache.set(def, flags);
  return flags;
};

/** The values an enum-typed flag (or each item of a list of them) accepts, as shell completion offers them. */
export const flagChoices = (def: CommandDef, key: string): readonly string[] | undefined => {
  const node = schemaShape(def)[key];
  if (!node) return undefined;
  const type = base(node);
  const item = type._zod.def.type === "array" && type._zod.def.element ? base(type._zod.def.element) : type;
  const entries = item._zod.def.entries;
  return item._zod.def.type === "enum" && entries ? Object.values(entries).map(String) : undefined;
};

/** A flag's spellings as help prints them: "--agent-id, --name <id>". */
export const flagSyntax = (flag: Flag): string =>
  [[flag.name, ...flag.aliases].join(", "), flag.placeholder].filter(Boolean).join(" ");

/** The flag a schema key is given with, for error messages: "--agent-id". */
export const flagLabel = (def: CommandDef, key: string): string | undefined => commandFlags(def).find((f) => f.key === key)?.name;
