// Structured log lines on stderr, one JSON object per line. Callers pass ids and counts, never secrets,
// request bodies, headers or environment values. A person tails this stream, and a message can hold text from
// elsewhere (a job directory, an error from a script or a store): safeJson keeps the values exact and the bytes inert.
import { safeJson } from "../terminal-text.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  child(service: string): Logger;
}

export const createLogger = (
  write: (line: string) => void = (line) => process.stderr.write(line),
  service = "worker",
): Logger => ({
  log: (level, msg, fields = {}) => write(`${safeJson({ time: new Date().toISOString(), level, service, msg, ...fields })}\n`),
  child: (name) => createLogger(write, name),
});
