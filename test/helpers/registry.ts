// Every binary and every (sub)command, loaded from the same registry bin/ is generated from.
import { binaries } from "../../app/agent_computer/src/cli/binaries.ts";
import type { BinaryDef, CommandDef } from "../../app/agent_computer/src/cli/kernel/command.ts";

export interface CommandEntry {
  binary: string;
  words: string[];
  def: CommandDef;
}

export const binaryNames = Object.keys(binaries).sort();

export const loadBinary = (name: string): Promise<BinaryDef> => {
  const load = binaries[name];
  if (!load) throw new Error(`no binary ${name}`);
  return load();
};

export const allCommands = async (): Promise<CommandEntry[]> => {
  const entries: CommandEntry[] = [];
  for (const name of binaryNames) {
    const binary = await loadBinary(name);
    if (binary.command) entries.push({ binary: name, words: [], def: binary.command });
    for (const [key, load] of Object.entries(binary.subcommands ?? {})) {
      entries.push({ binary: name, words: key.split(" "), def: await load() });
    }
  }
  return entries;
};
