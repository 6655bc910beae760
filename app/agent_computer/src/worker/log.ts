// Structured log lines on stderr, one JSON object per line. Callers pass ids and counts, never secrets,
// request bodies, headers or environment values.

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  child(service: string): Logger;
}

export const createLogger = (
  write: (line: string) => void = (line) => process.stderr.write(line),
  service = "worker",
): Logger => ({
  log: (level, msg, fields = {}) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level, service, msg, ...fields })}\n`),
  child: (name) => createLogger(write, name),
});
