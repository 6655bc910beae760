// What a failure of the SQLite store means to its user, said in terms of the store file: a full disk, a damaged
// or foreign file, a file that can be read but not written, a lock held too long. Anything else keeps its own
// error, which the entry point reports as a bug.
import { AppError, errorText } from "../../errors.ts";
import { UniqueViolation } from "../port.ts";

const dirOf = (file: string): string => file.slice(0, file.lastIndexOf("/")) || "/";

/** The SQLite result code (SQLITE_FULL, SQLITE_IOERR_WRITE, …) or errno name (ENOSPC) a failure carries. */
const codeOf = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? "");

const AWAY =
  "stop every agent-computer process using it, then move the file aside together with its -wal and -shm files " +
  "(the next command creates a fresh store; agents check in again), or restore it from a backup";

/**
 * The AppError for a SQLite failure on `file`, a UniqueViolation for a unique constraint (services re-read on it),
 * or the error itself when it says nothing about the environment.
 */
export const classifySqliteError = (error: unknown, file: string): unknown => {
  if (error instanceof AppError || error instanceof UniqueViolation) return error;
  const code = codeOf(error);
  const said = errorText(error);
  if (code.startsWith("SQLITE_CONSTRAINT_UNIQUE") || code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
    return new UniqueViolation(said, { cause: error });
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new AppError("STORE_UNAVAILABLE", "the SQLite store stayed locked by another process", {
      hint: "retry; if it persists, look for a stuck process holding the store",
      cause: error,
    });
  }
  if (code === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT") {
    return new AppError("DISK_FULL", `no space left on the disk holding ${dirOf(file)}; nothing was written`, {
      hint: `free space there (df -h ${dirOf(file)}), or set AGENT_COMPUTER_HOME to a directory on another disk; then retry`,
      details: { file },
      cause: error,
    });
  }
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) {
    const what = code === "SQLITE_NOTADB" ? "is not an SQLite database" : "is damaged (database disk image is malformed)";
    return new AppError("STORE_CORRUPT", `the store file ${file} ${what}`, { hint: AWAY, details: { file }, cause: error });
  }
  if (code.startsWith("SQLITE_READONLY")) {
    return new AppError("STORE_READ_ONLY", `the store file ${file} can be read but not written (${said})`, {
      hint: "make the file, its -wal and -shm files and their directory writable for this user (or remount the file system read-write), or set AGENT_COMPUTER_HOME elsewhere",
      details: { file },
      cause: error,
    });
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return new AppError("STORE_UNAVAILABLE", `an I/O error on the store file ${file} (${code}: ${said})`, {
      hint: `check free space (df -h ${dirOf(file)}) and the disk (dmesg); retry`,
      details: { file },
      cause: error,
    });
  }
  return error;
};
