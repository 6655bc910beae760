// The worker's log on stderr, in one of two formats. json: one JSON object per line, for journals, files and scripts.
// text: for a person at a terminal, one line per entry (time, level, service, message, then the fields as JSON).
// Callers pass ids and counts, never secrets, request bodies, headers or environment values. A message can hold text
// from elsewhere (a job directory, an error from a script or a store): safeJson keeps the values exact and the bytes
// inert, and a text line's message goes through neutralizeLine.
import { neutralizeLine, safeJson } from "../terminal-text.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "json" | "text";
export const LOG_FORMATS = ["text", "json"] as const;

export interface Logger {
  readonly format: LogFormat;
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  /** text only: lines written as they are (the start line); each is made safe for a terminal first. */
  plain(lines: readonly string[]): void;
  child(service: string): Logger;
}

const textLine = (time: Date, level: LogLevel, service: string, msg: string, fields: Record<string, unknown>): string => {
  const clock = time.toISOString().slice(11, 23);
  const rest = Object.keys(fields).length > 0 ? ` ${safeJson(fields)}` : "";
  return `${clock} ${level.padEnd(5)} ${service}: ${neutralizeLine(msg)}${rest}\n`;
};

export const createLogger = (
  write: (line: string) => void = (line) => process.stderr.write(line),
  service = "worker",
  format: LogFormat = "json",
): Logger => ({
  format,
  log: (level, msg, fields = {}) => {
    const time = new Date();
    write(
      format === "text"
        ? textLine(time, level, service, msg, fields)
        : `${safeJson({ time: time.toISOString(), level, service, msg, ...fields })}\n`,
    );
  },
  plain: (lines) => write(lines.map((line) => `${neutralizeLine(line)}\n`).join("")),
  child: (name) => createLogger(write, name, format),
});
