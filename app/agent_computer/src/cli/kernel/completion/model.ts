// What shell completion knows of a binary, derived from the same definitions as --help: the subcommand words, each
// command's flags (kernel/flags.ts) and the values of enum-typed flags. Building it loads every subcommand's module,
// so it is only ever built for `<binary> completion <shell>`.

import type { BinaryDef, CommandDef } from "../command.ts";
import { commandFlags, flagChoices } from "../flags.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

/** The words the kernel itself answers before any command's own (kernel/front.ts). */
export const KERNEL_WORDS = ["help", "completion"] as const;

/** A flag's spellings and what follows it: nothing (a boolean), a file path, one of `choices`, or any text. */
export interface CompletionFlag {
  names: readonly string[];
  value: "none" | "file" | "text" | { choices: readonly string[] };
}

/** One place in the command tree: the subcommand words typed so far ("" at the top), what may come next. */
export interface CompletionNode {
  path: string;
  words: readonly string[];
  flags: readonly CompletionFlag[];
}

// Only words made of these characters reach a script, so none can break out of its quoting.
const SHELL_SAFE = /^[A-Za-z0-9_.:@/+,=-]+$/;
export const shellSafe = (word: string): boolean => SHELL_SAFE.test(word);

const KERNEL_FLAGS: CompletionFlag[] = [
  { names: ["--json"], value: "none" },
  { names: ["--help", "-h"], value: "none" },
  { names: ["--version", "-V"], value: "none" },
];

const flagsOf = (def: CommandDef): CompletionFlag[] => [
  ...commandFlags(def).map((flag): CompletionFlag => {
    const choices = flagChoices(def, flag.key)?.filter(shellSafe);
    const value =
      flag.placeholder === undefined
        ? "none"
        : choices && choices.length > 0
          ? { choices }
          : flag.placeholder.startsWith("<path") || flag.placeholder === "<file>"
            ? "file"
            : "text";
    return { names: [flag.name, ...flag.aliases].filter(shellSafe), value };
  }),
  ...KERNEL_FLAGS,
];

/** Every node of the binary's tree, the top ("") first. */
export const completionModel = async (binary: BinaryDef): Promise<CompletionNode[]> => {
  const subcommands = Object.entries(binary.subcommands ?? {});
  const nodes = new Map<string, { words: Set<string>; flags: CompletionFlag[] }>();
  const node = (path: string) => {
    let found = nodes.get(path);
    if (!found) {
      found = { words: new Set(), flags: [...KERNEL_FLAGS] };
      nodes.set(path, found);
    }
    return found;
  };
  const top = node("");
  if (binary.command) top.flags = flagsOf(binary.command);
  for (const [key, load] of subcommands) {
    const words = key.split(" ");
    words.forEach((word, i) => {
      node(words.slice(0, i).join(" ")).words.add(word);
    });
    node(key).flags = flagsOf(await load());
  }
  for (const word of KERNEL_WORDS) top.words.add(word);
  const helpWords = node("help").words;
  for (const word of top.words) if (!(KERNEL_WORDS as readonly string[]).includes(word)) helpWords.add(word);
  for (const shell of SHELLS) node("completion").words.add(shell);
  return [...nodes].map(([path, { words, flags }]) => ({ path, words: [...words].filter(shellSafe), flags }));
};
