// The console's secret: a random token in a 0600 file of the 0700 state directory, so only the Unix user who owns
// the state directory can read it (and so open the console). It outlives worker restarts, so a browser signed in
// once stays signed in; removing the file and restarting the worker signs every browser out.
import { statSync } from "node:fs";
import { createPrivateFileExclusive, ensurePrivateDir, readTextIfPresent, writePrivateFile } from "./private-files.ts";

export const CONSOLE_TOKEN_FILE_NAME = "console-token";

/** 32 random bytes, base64url: URL-safe as it is. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const consoleTokenFile = (stateDir: string): string => `${stateDir}/${CONSOLE_TOKEN_FILE_NAME}`;

const mintConsoleToken = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");

/** A token another user may have read (group or other bits) or a file that holds no token is not kept. */
const usable = (file: string, text: string | undefined): text is string =>
  text !== undefined && TOKEN_PATTERN.test(text.trim()) && (statSync(file).mode & 0o077) === 0;

/** The console token of this state directory, created on first use; a loose or damaged file is replaced. */
export const ensureConsoleToken = (stateDir: string): string => {
  ensurePrivateDir(stateDir);
  const file = consoleTokenFile(stateDir);
  const existing = readTextIfPresent(file);
  if (usable(file, existing)) return existing.trim();
  if (existing === undefined) createPrivateFileExclusive(file, `${mintConsoleToken()}\n`);
  else writePrivateFile(stateDir, CONSOLE_TOKEN_FILE_NAME, `${mintConsoleToken()}\n`);
  // Two processes may race to create it: whichever file won is the token of both.
  const written = readTextIfPresent(file);
  if (!usable(file, written)) throw new Error(`${file} does not hold a console token after writing it`);
  return written.trim();
};
