// This host's Herdr coordination state: everything that names a pane, a process or a raw credential. It lives in
// the state directory (0700 dirs, 0600 files), never in a shared store. Writes are atomic (temp file + rename);
// `durable` writes also fsync the file and its directory, for records that must survive a crash (receipts).
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { Paths } from "../../paths.ts";

export interface HerdrStateDirs {
  root: string;
  locks: string;
  controllers: string;
  credentials: string;
  leases: string;
  receipts: string;
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
  };
};

export const ensurePrivateDir = (dir: string): void => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
};

const fsyncDir = (dir: string): void => {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  }
};

export const writeJsonAtomic = (dir: string, name: string, value: unknown, options: { durable?: boolean } = {}): string => {
  ensurePrivateDir(dir);
  const file = join(dir, name);
  const temp = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    if (options.durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  if (options.durable) fsyncDir(dir);
  return file;
};

export const readJson = <T>(dir: string, name: string): T | undefined => {
  try {
    return JSON.parse(readFileSync(join(dir, name), "utf8")) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
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

export const removeFile = (dir: string, name: string): void => {
  rmSync(join(dir, name), { force: true });
};
