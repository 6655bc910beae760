import type { BinaryDef, CommandDef } from "./command.ts";

export type BinaryLoader = () => Promise<BinaryDef>;

/** A binary that is exactly one command; name and summary come from the command itself. */
export const singleCommand =
  (load: () => Promise<{ default: CommandDef }>): BinaryLoader =>
  async () => {
    const command = (await load()).default;
    return { name: command.name, summary: command.summary, command };
  };
