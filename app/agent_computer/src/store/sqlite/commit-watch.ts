// Change hints for a SQLite store: every commit, by any process, writes the WAL file (or the database file when
// the WAL is not in use), and the kernel reports that write to a watcher of the directory (inotify on Linux).
// A hint only means "look again now": names in the directory are filtered, but a checkpoint or our own
// presence write also hints, and a file system without change events (some network mounts) never does, so
// callers keep a slow poll of their own.

/** Watches the database's directory for changes to the database or its WAL; returns the unsubscriber. */
export const watchCommits = async (file: string, onHint: () => void): Promise<() => Promise<void>> => {
  // node:fs is loaded only by the processes that wait, not by every command that opens the store.
  const { watch } = await import("node:fs");
  const slash = file.lastIndexOf("/");
  const dir = file.slice(0, slash) || "/";
  const name = file.slice(slash + 1);
  const watched = new Set([name, `${name}-wal`]);
  const watcher = watch(dir, { persistent: true }, (_event, changed) => {
    if (changed === null || watched.has(String(changed))) onHint();
  });
  // A watcher that fails (the directory removed, the kernel's watch limit reached) leaves the caller's poll.
  watcher.on("error", () => watcher.close());
  return async () => watcher.close();
};
