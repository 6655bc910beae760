// Runs the `herdr` executable: argument array, explicit cwd, timeout and maxBuffer, a curated environment,
// and every outcome classified into a HerdrError kind. Raw stderr never leaves this file; only the code and
// message of a parsed Herdr error envelope do.
import { execa } from "execa";
import type * as z from "zod/mini";
import { HerdrError, kindForHerdrCode, sanitizeHerdrMessage } from "./failure-kinds.ts";
import { type HerdrResultType, resultSchemas } from "./records.ts";

/**
 * A `recent` read of an idle alternate-screen agent: Herdr scrolls it with mouse-wheel input and back, taking up to
 * about 15 s + 5 s (alt_screen_read.rs); this budget leaves a margin over that.
 */
export const SCROLLING_READ_TIMEOUT_MS = 25_000;

export interface HerdrRunOptions {
  /** The executable; resolved through the curated PATH. Default `herdr`. */
  bin: string;
  /** Where variables are taken from before curation. */
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  maxBuffer: number;
  /** execa's `cleanup`: kill the child when this process exits. */
  killWithParent: boolean;
}

/**
 * Where agent clients keep their config when relocated; `herdr integration status` reads them
 * (src/integration/env.rs), so without them a relocated install reads `not installed`.
 */
export const CLIENT_CONFIG_VARIABLES = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_CODING_AGENT_DIR", "COPILOT_HOME"] as const;

/**
 * Herdr needs only these: PATH to find itself, HOME and XDG_CONFIG_HOME for its default socket
 * ($XDG_CONFIG_HOME/herdr/herdr.sock), HERDR_* (HERDR_SOCKET_PATH, HERDR_SESSION, HERDR_PANE_ID, …) and the agent
 * clients' config directories.
 */
export const curateHerdrEnv = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const curated: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    const wanted =
      key === "PATH" ||
      key === "HOME" ||
      key === "XDG_CONFIG_HOME" ||
      key.startsWith("HERDR_") ||
      (CLIENT_CONFIG_VARIABLES as readonly string[]).includes(key);
    if (wanted && value !== undefined) curated[key] = value;
  }
  return curated;
};

const describeCommand = (args: readonly string[]): string => `herdr ${args.slice(0, 2).join(" ")}`;

interface RawOutcome {
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
  timedOut: boolean;
  canceled: boolean;
  isMaxBuffer: boolean;
  code: string | undefined;
}

const spawnHerdr = async (
  args: readonly string[],
  timeoutMs: number,
  options: HerdrRunOptions,
  signal: AbortSignal | undefined,
): Promise<RawOutcome> => {
  const result = await execa(options.bin, args, {
    cancelSignal: signal,
    cleanup: options.killWithParent,
    cwd: options.cwd,
    env: curateHerdrEnv(options.env),
    extendEnv: false,
    timeout: timeoutMs,
    maxBuffer: options.maxBuffer,
    reject: false,
    stdin: "ignore",
    encoding: "utf8",
    // Reads are raw text without an added newline; keep them byte for byte.
    stripFinalNewline: false,
  });
  const failure = result as { code?: unknown; isMaxBuffer?: boolean };
  return {
    stdout: String(result.stdout ?? ""),
    stderr: String(result.stderr ?? ""),
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    canceled: result.isCanceled === true,
    isMaxBuffer: failure.isMaxBuffer === true,
    code: typeof failure.code === "string" ? failure.code : undefined,
  };
};

const errorEnvelope = (stderr: string): { code: string; message: string } | undefined => {
  try {
    const parsed = JSON.parse(stderr.trim()) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = parsed.error ?? {};
    if (typeof code === "string") return { code, message: typeof message === "string" ? message : "" };
  } catch {
    // not an envelope; classified by exit status below
  }
  return undefined;
};

/**
 * Which fields failed, by path and zod's issue code (`agents[0].agent_status (invalid_value)`); never the values,
 * which are Herdr's untrusted text.
 */
export const schemaIssues = (error: z.core.$ZodError): string =>
  error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
      return `${path.replace(/^\./, "") || "(record)"} (${issue.code})`;
    })
    .join(", ");

/** Runs herdr and returns stdout of a successful (exit 0) run; throws a classified HerdrError otherwise. */
const runChecked = async (
  args: readonly string[],
  timeoutMs: number,
  options: HerdrRunOptions,
  signal?: AbortSignal,
): Promise<string> => {
  const command = describeCommand(args);
  const outcome = await spawnHerdr(args, timeoutMs, options, signal);
  const fail = (kind: ConstructorParameters<typeof HerdrError>[0], message: string, herdrCode?: string): HerdrError =>
    new HerdrError(kind, message, { command, herdrCode });
  if (outcome.code === "ENOENT") throw fail("not_installed", `${options.bin} was not found on PATH`);
  if (outcome.canceled) throw fail("cancelled", `${command} was cancelled by its caller`);
  if (outcome.timedOut) throw fail("timeout", `${command} did not finish within ${timeoutMs} ms`);
  if (outcome.isMaxBuffer) throw fail("protocol", `${command} wrote more than ${options.maxBuffer} bytes`);
  if (outcome.exitCode === 0) return outcome.stdout;
  const envelope = outcome.exitCode === 1 ? errorEnvelope(outcome.stderr) : undefined;
  if (envelope) throw fail(kindForHerdrCode(envelope.code), sanitizeHerdrMessage(envelope.message), envelope.code);
  if (outcome.exitCode === 2) throw fail("usage", `${command} rejected its command line (exit 2)`);
  // Herdr's client prints an io error and no envelope when the connection closes before an answer line: a server
  // restart or live handoff cut the call.
  if (outcome.exitCode === 1) throw fail("interrupted", `${command} was cut off before Herdr answered`);
  throw fail("unknown", `${command} ended with exit ${String(outcome.exitCode ?? "signal")}`);
};

/** A command that answers with a JSON envelope whose result has the given type. */
export const runHerdrJson = async <T extends HerdrResultType>(
  args: readonly string[],
  expected: T,
  timeoutMs: number,
  options: HerdrRunOptions,
  signal?: AbortSignal,
): Promise<z.output<(typeof resultSchemas)[T]>> => {
  const stdout = await runChecked(args, timeoutMs, options, signal);
  const protocolError = (detail: string): HerdrError =>
    new HerdrError("protocol", `${describeCommand(args)} answered ${detail}`, { command: describeCommand(args) });
  let envelope: { result?: { type?: unknown } };
  try {
    envelope = JSON.parse(stdout.trim()) as typeof envelope;
  } catch {
    throw protocolError("with output that is not JSON");
  }
  if (envelope.result?.type !== expected) throw protocolError(`result type ${String(envelope.result?.type)}, not ${expected}`);
  const parsed = resultSchemas[expected].safeParse(envelope.result);
  if (!parsed.success)
    throw protocolError(`a ${expected} that does not match Herdr's record shape: ${schemaIssues(parsed.error)}`);
  return parsed.data as z.output<(typeof resultSchemas)[T]>;
};

/** A read command: stdout is the pane text itself. */
export const runHerdrText = (args: readonly string[], timeoutMs: number, options: HerdrRunOptions): Promise<string> =>
  runChecked(args, timeoutMs, options);
