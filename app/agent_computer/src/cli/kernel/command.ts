import type * as core from "zod/v4/core";
import type { ErrorCode } from "../../errors.ts";
import type { CommandContext } from "./context.ts";

/**
 * Where a flag differs from what the kernel derives from its schema key (kernel/flags.ts): the key in kebab case is the
 * flag, a boolean takes no value, an array is repeatable and splits comma lists.
 */
export interface FlagOverride {
  /** The value's placeholder in help, e.g. "<path|->", when the derived one says too little. */
  placeholder?: string;
  /** Other spellings of the same flag (older names, the seeds' own); help shows them beside the flag. */
  aliases?: readonly string[];
  /** false: each value of a repeatable flag is kept whole (values that may hold commas, e.g. messages). */
  commaList?: false;
}

/** A positional argument, taken in order before any "--". */
export interface ArgSpec {
  key: string;
  name: string;
}

/** One command: the schema is the single source of validation and of the option docs. */
export interface CommandDef<Schema extends core.$ZodType = core.$ZodType, Result = unknown> {
  /** Full invocation, e.g. "agent-inbox-cli" or "agent-identity-cli rotate-token". */
  name: string;
  summary: string;
  /** Purpose, trust model and guarantees: paragraphs of the contract. */
  description: string;
  schema: Schema;
  /** Only the flags that differ from their derived form, keyed by schema key. */
  flags?: Record<string, FlagOverride>;
  args?: ArgSpec[];
  /** Key that receives everything after "--", joined with spaces. */
  rest?: { key: string; name: string };
  /** Whether the command accepts --json (every command does unless it streams). */
  writes: string;
  output: string;
  errors: readonly ErrorCode[];
  env: readonly string[];
  examples: readonly string[];
  run(options: core.output<Schema>, ctx: CommandContext): Promise<Result>;
  render(result: Result, options: core.output<Schema>): string;
}

/** A binary is one command or a set of subcommands keyed by their words ("controller acquire"). */
export interface BinaryDef {
  name: string;
  summary: string;
  description?: string;
  command?: CommandDef;
  subcommands?: Record<string, () => Promise<CommandDef>>;
  /** For binaries with subcommands: shared sections printed once in the top-level help. */
  env?: readonly string[];
  examples?: readonly string[];
}

export const defineCommand = <Schema extends core.$ZodType, Result>(def: CommandDef<Schema, Result>): CommandDef =>
  def as unknown as CommandDef;
