// Runs a printed command line through its binary's own argv parser and schema, in process: what a person pastes
// must at least be accepted (no INVALID_INPUT) before anything else can go right.
import { binaries } from "../../app/agent_computer/src/cli/binaries.ts";
import { parseOptions } from "../../app/agent_computer/src/cli/kernel/parse.ts";
import { shellWords } from "./shell-words.ts";

export interface ParsedLine {
  /** The command's full name, e.g. "agent-task-cli accept". */
  command: string;
  options: Record<string, unknown>;
}

export const parseCommandLine = async (line: string): Promise<ParsedLine> => {
  const [name = "", ...argv] = shellWords(line);
  const load = binaries[name];
  if (!load) throw new Error(`not one of the binaries: ${name}`);
  const binary = await load();
  let def = binary.command;
  let rest = argv;
  const keys = Object.keys(binary.subcommands ?? {}).sort((a, b) => b.split(" ").length - a.split(" ").length);
  for (const key of keys) {
    const words = key.split(" ");
    if (words.every((w, i) => argv[i] === w)) {
      def = await binary.subcommands?.[key]?.();
      rest = argv.slice(words.length);
      break;
    }
  }
  if (!def) throw new Error(`no subcommand of ${name} in: ${line}`);
  return { command: def.name, options: parseOptions(def, rest) as Record<string, unknown> };
};
