import type * as core from "zod/v4/core";
import type { HerdrDeps } from "../../domain/herdr/herdr-deps.ts";
import type { AppError, ErrorCode } from "../../errors.ts";
import type { CommandContext } from "./command-context.ts";
import type { Clock, HostDeps } from "./composition-root.ts";
import type { Credential, CredentialRequest } from "./credential.ts";

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

/** What every command gets: its context (env, paths, input) and the credential it declared, resolved. */
export interface KernelDeps {
  ctx: CommandContext;
  /** undefined when the command declares no credential, or no source holds a token. */
  credential: Credential | undefined;
}

/**
 * What a command declares it needs; the kernel builds exactly that, once, before `run`.
 * "none": the context only; "store": the domain deps over the store, opened at its first use; "herdr": those plus
 * the Herdr adapter, git and the host's Herdr state dirs (loaded only for these commands), on a live clock.
 */
export type DepsKind = "none" | "store" | "herdr";

export type DepsOf<Kind extends DepsKind> = Kind extends "herdr"
  ? HerdrDeps & KernelDeps
  : Kind extends "store"
    ? HostDeps & KernelDeps
    : KernelDeps;

export interface Needs<Options, Kind extends DepsKind> {
  deps: Kind;
  /** For "store": "call" (default) stops the clock when the deps are built; "live" reads it at each look. */
  clock?: Clock;
  /**
   * false for a call that reads only this host's files (a status): it gets the host's clock and no store, so on
   * PostgreSQL it is not held up measuring the server's clock, nor by a server that does not answer. Default: true.
   */
  usesStore?: (options: Options) => boolean;
  /** Whose token the command presents (undefined for a call that presents none). */
  credential?: (options: Options) => CredentialRequest | undefined;
}

/** One command: the schema is the single source of validation and of the option docs. */
export interface CommandDef<Schema extends core.$ZodType = core.$ZodType, Result = unknown, Kind extends DepsKind = DepsKind> {
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
  needs: Needs<core.output<Schema>, Kind>;
  run(options: core.output<Schema>, deps: DepsOf<Kind>): Promise<Result>;
  render(result: Result, options: core.output<Schema>): string;
  /**
   * A result that is still a failure (the write happened, its purpose did not): the result is printed on stdout
   * as usual, then this error on stderr, and the command exits with its code.
   */
  failsWith?(result: Result): AppError | undefined;
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

export const defineCommand = <Schema extends core.$ZodType, Result, const Kind extends DepsKind>(
  def: CommandDef<Schema, Result, Kind>,
): CommandDef => def as unknown as CommandDef;
