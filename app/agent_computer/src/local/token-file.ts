// A --token-file that a first registration fills in. The file is claimed before the store is written (so a
// token is never minted with nowhere to put it) and written through the claimed descriptor: created exclusively,
// never through a symbolic link, never over a file that already holds something, and left 0600.
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, openSync, unlinkSync, writeSync } from "node:fs";

export interface TokenFileClaim {
  /** Writes the token; false when it could not be written (the caller then shows it instead). */
  fill(token: string): boolean;
  /** Gives the file back as it was: removed when the claim created it, left empty otherwise. */
  release(): void;
}

/** The reason a path cannot take a new token (for the error message), or the claim. */
export const claimTokenFile = (path: string): TokenFileClaim | { refused: string } => {
  let fd: number;
  let created = true;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return { refused: (error as NodeJS.ErrnoException).code ?? "error" };
    // It exists: take it only if it is an empty regular file (a symbolic link fails to open here).
    try {
      fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (again) {
      return { refused: (again as NodeJS.ErrnoException).code === "ELOOP" ? "a symbolic link" : "not writable" };
    }
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > 0) {
      closeSync(fd);
      return { refused: stat.isFile() ? "not empty" : "not a regular file" };
    }
    created = false;
  }
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    fill: (token) => {
      try {
        fchmodSync(fd, 0o600);
        writeSync(fd, `${token}\n`);
        fsyncSync(fd);
        return true;
      } catch {
        return false;
      } finally {
        close();
      }
    },
    release: () => {
      close();
      if (created) unlinkSync(path);
    },
  };
};
