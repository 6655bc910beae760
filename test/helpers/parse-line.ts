// Runs a printed command line through its binary's own argv front end and schema, in process: what a person pastes
// must at least be accepted (no INVALID_INPUT) before anything else can go right.
import { binaries } from "../../app/agent_computer/src/cli/binaries.ts";
import { parseArgv } from "../../app/agent_computer/src/cli/kernel/front.ts";
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
  const invocation = await parseArgv(await load(), argv);
  if (invocation.kind !== "run") throw new Error(`not a command to run (${invocation.kind}): ${line}`);
  return { command: invocation.def.name, options: invocation.options as Record<string, unknown> };
};
