// A job is a directory with main.ts. Both are resolved by real path at registration and again before
// every attempt, so edits (or a re-pointed symlink) take effect without registering again.
import { realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const ENTRY_FILE = "main.ts";

export type JobDirResolution = { ok: true; dir: string; entry: string } | { ok: false; problem: string };

export const resolveJobDir = (dir: string, cwd = process.cwd()): JobDirResolution => {
  let real: string;
  try {
    real = realpathSync(resolve(cwd, dir));
  } catch {
    return { ok: false, problem: `the job directory ${dir} does not exist (moved or deleted?)` };
  }
  if (!statSync(real).isDirectory()) return { ok: false, problem: `${real} is not a directory` };
  let entry: string;
  try {
    entry = realpathSync(join(real, ENTRY_FILE));
  } catch {
    return { ok: false, problem: `${join(real, ENTRY_FILE)} does not exist: a job directory must contain ${ENTRY_FILE}` };
  }
  if (!statSync(entry).isFile()) return { ok: false, problem: `${entry} is not a file` };
  return { ok: true, dir: real, entry };
};
