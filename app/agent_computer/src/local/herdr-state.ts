// This host's Herdr coordination state: everything that names a pane, a process or a raw credential. It lives in
// the state directory (0700 dirs, 0600 files), never in a shared store. Writes are atomic (private-files.ts);
// `durable` writes also fsync the file and its directory, for records that must survive a crash (receipts).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Paths } from "../paths.ts";
import { type PrivateWriteOptions, readTextIfPresent, removePrivateFile, writePrivateFile } from "./private-files.ts";

export interface HerdrStateDirs {
  root: string;
  locks: string;
  controllers: string;
  credentials: string;
  leases: string;
  receipts: string;
  verifications: string;
}

export const herdrStateDirs = (paths: Paths): HerdrStateDirs => {
  const root = join(paths.stateDir, "herdr");
  return {
    root,
    locks: join(root, "locks"),
    controllers: join(root, "controllers"),
    credentials: join(root, "credentials"),
    leases: join(root, "leases"),
    receipts: join(root, "receipts"),
    verifications: join(root, "verifications"),
  };
};

export const writeJsonAtomic = (dir: string, name: string, value: unknown, options: PrivateWriteOptions = {}): string =>
  writePrivateFile(dir, name, `${JSON.stringify(value, null, 2)}\n`, options);

export const readJson = <T>(dir: string, name: string): T | undefined => {
  const text = readTextIfPresent(join(dir, name));
  return text === undefined ? undefined : (JSON.parse(text) as T);
};

export const listJson = <T>(dir: string): T[] => {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith(".json"))
    .map((name) => readJson<T>(dir, name))
    .filter((value): value is T => value !== undefined);
};

export const removeFile = removePrivateFile;
