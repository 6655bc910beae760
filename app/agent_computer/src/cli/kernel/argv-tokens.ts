// argv → the raw object the schema validates, driven by each command's FlagSpecs. Long options only:
// `--name value`, `--name=value`, boolean `--name`; positionals in order; everything after "--" is free text.
// Written here rather than with commander: this runs on every call of every binary, and commander's module
// alone (it loads node:child_process and node:events) cost more start-up than the rest of argv handling.

import { AppError } from "../../errors.ts";
import { splitRest } from "./argv.ts";
import type { CommandDef, FlagSpec } from "./command.ts";

interface Option {
  key: string;
  name: string;
  takesValue: boolean;
  spec: FlagSpec;
}

const optionsOf = (def: CommandDef): Map<string, Option> => {
  const options = new Map<string, Option>();
  for (const [key, spec] of Object.entries(def.flags)) {
    const [name = spec.flag, placeholder] = spec.flag.split(" ");
    options.set(name, { key, name, takesValue: placeholder !== undefined, spec });
  }
  options.set("--json", { key: "json", name: "--json", takesValue: false, spec: { flag: "--json" } });
  return options;
};

/** Levenshtein distance, for "did you mean". */
const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitute));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
};

const unknownOption = (given: string, options: Map<string, Option>): AppError => {
  const typed = given.slice(2);
  const close = [...options.keys()]
    .map((name) => ({ name, d: distance(typed, name.slice(2)) }))
    .filter(({ name, d }) => d > 0 && (name.length - 2 - d) / (name.length - 2) > 0.4)
    .sort((x, y) => x.d - y.d || x.name.localeCompare(y.name));
  const best = close.filter(({ d }) => d === close[0]?.d).map(({ name }) => name);
  const hint = best.length > 0 ? `\n(Did you mean ${best.join(", ")}?)` : "";
  return new AppError("INVALID_INPUT", `unknown option '${given}'${hint}`);
};

const commaItems = (value: string): string[] =>
  value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

const assign = (raw: Record<string, unknown>, option: Option, value: string | true): void => {
  if (option.spec.repeatable && typeof value === "string") {
    const previous = (raw[option.key] as string[] | undefined) ?? [];
    raw[option.key] = [...previous, ...(option.spec.commaList === false ? [value] : commaItems(value))];
  } else raw[option.key] = value;
};

/** argv (without the binary and subcommand words) to the raw object the schema validates. */
export const argvToRaw = (def: CommandDef, argv: readonly string[]): Record<string, unknown> => {
  const { head, rest } = splitRest(argv);
  const options = optionsOf(def);
  const raw: Record<string, unknown> = {};
  const positionals: string[] = [];
  for (let i = 0; i < head.length; i++) {
    const token = head[i] as string;
    if (token === "-" || !token.startsWith("-")) {
      positionals.push(token);
      continue;
    }
    const eq = token.startsWith("--") ? token.indexOf("=") : -1;
    const name = eq === -1 ? token : token.slice(0, eq);
    const option = options.get(name);
    if (!option) throw unknownOption(name, options);
    if (!option.takesValue) {
      if (eq !== -1) throw new AppError("INVALID_INPUT", `option '${name}' takes no value (got ${token})`);
      assign(raw, option, true);
    } else if (eq !== -1) {
      assign(raw, option, token.slice(eq + 1));
    } else {
      const value = head[i + 1];
      if (value === undefined) throw new AppError("INVALID_INPUT", `option '${option.spec.flag}' argument missing`);
      assign(raw, option, value);
      i++;
    }
  }
  delete raw.json;
  const args = def.args ?? [];
  if (positionals.length > args.length) {
    throw new AppError("INVALID_INPUT", `unexpected argument: ${positionals.slice(args.length).join(" ")}`);
  }
  args.forEach((arg, i) => {
    if (positionals[i] !== undefined) raw[arg.key] = positionals[i];
  });
  if (def.rest && rest !== undefined) raw[def.rest.key] = rest.join(" ");
  else if (rest !== undefined && rest.length > 0) {
    throw new AppError("INVALID_INPUT", `unexpected arguments after --: ${rest.join(" ")}`);
  }
  return raw;
};
