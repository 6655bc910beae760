// The one way host-local state reaches the disk: directories 0700 and files 0600, tightened again when they were
// loosened, and every file written aside and then renamed (or hard-linked) into place, so a reader or a crash
// never meets a half-written file. A temp name ends in ".tmp": readers look only for their own suffixes, so a
// temp file left by a crashed writer is never read. Random names come from the Web Crypto global, not node:crypto,
// which would join the start-up of every command that imports this module.
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/** Creates the directory (and missing parents) 0700, and makes it 0700 again if it already existed looser. */
export const ensurePrivateDir = (dir: string): string => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
};

/** Creates the file empty if it is missing and makes it 0600 (its content is left alone). */
export const ensurePrivateFile = (file: string): void => {
  closeSync(openSync(file, "a", 0o600));
  chmodSync(file, 0o600);
};

// O_EXCL already refuses any existing path, a symlink included; O_NOFOLLOW says so where the platform has it.
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

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

/** Writes content to a new 0600 temp file beside `file` and returns its path. */
const stage = (file: string, content: string, durable: boolean): string => {
  const temp = `${file}.${process.pid}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const fd = openSync(temp, CREATE_NEW, 0o600);
  try {
    // The umask may have narrowed the mode further; the file is exactly 0600 either way.
    fchmodSync(fd, 0o600);
    writeFileSync(fd, content);
    if (durable) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  return temp;
};

export interface PrivateWriteOptions {
  /** Also fsync the file and its directory: for records that must survive a crash of the machine. */
  durable?: boolean;
}

/** Atomically replaces dir/name with content (the directory is made private first); returns the file's path. */
export const writePrivateFile = (dir: string, name: string, content: string, options: PrivateWriteOptions = {}): string => {
  ensurePrivateDir(dir);
  const file = join(dir, name);
  const temp = stage(file, content, options.durable === true);
  try {
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  if (options.durable) fsyncDir(dir);
  return file;
};

/**
 * Creates `file` with content only if no file of that name exists (hard link of a complete temp file: the name
 * appears complete or not at all). Returns false when the name is taken. Its directory must exist.
 */
export const createPrivateFileExclusive = (file: string, content: string): boolean => {
  const temp = stage(file, content, false);
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
};

/** The file's text, or undefined when it does not exist; any other failure is thrown. */
export const readTextIfPresent = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
};

export const removePrivateFile = (dir: string, name: string): void => {
  rmSync(join(dir, name), { force: true });
};
