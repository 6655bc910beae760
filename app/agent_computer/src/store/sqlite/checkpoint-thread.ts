// The checkpoint thread of a long-lived process (the worker). In WAL mode every commit appends pages to the
// -wal file, and a checkpoint copies them back into the database file and syncs both files. Done inline, on
// the committing thread, that copy and its two fsyncs stall every write that queued behind it (bench/mesh.ts
// measured them as a fifth of a send). Here a second connection on its own thread copies pages (a PASSIVE
// checkpoint never blocks a writer) shortly after commits happen, so the main connection's own automatic
// checkpoint, kept as the safety valve, finds little left to copy and runs four times less often.
//
// One-shot commands never start it: they commit once and checkpoint inline, as SQLite does by default.

/**
 * The thread's program, run from a Blob so that the source form and the compiled executable load it the
 * same way (a worker file would need its own entry point in the build). It sleeps in Atomics.wait until the
 * main thread counts a commit, lets a few milliseconds of commits gather, checkpoints, and sleeps again: an
 * idle process costs no wake-ups. signals[0] counts commits, signals[1] = 1 asks it to stop.
 */
const THREAD_SOURCE = `
import { Database } from "bun:sqlite";
self.onmessage = ({ data }) => {
  const { file, signals, gatherMs } = data;
  const db = new Database(file);
  let seen = 0;
  while (Atomics.load(signals, 1) === 0) {
    Atomics.wait(signals, 0, seen);
    if (Atomics.load(signals, 1) !== 0) break;
    Bun.sleepSync(gatherMs);
    seen = Atomics.load(signals, 0);
    try {
      db.run("PRAGMA wal_checkpoint(PASSIVE)");
    } catch {
      // A failed pass changes nothing: the main connection's automatic checkpoint still bounds the WAL.
    }
  }
  db.close();
  postMessage("closed");
};
`;

/** How long the thread lets commits gather before it copies them. */
const GATHER_MS = 10;
const STOP_WAIT_MS = 2000;

/**
 * The main connection's own automatic checkpoint threshold (pages) while the thread runs: four times SQLite's
 * default, so the fsyncs left on the committing thread are four times rarer. The WAL stays under ~16 MB.
 */
export const LONG_LIVED_AUTOCHECKPOINT_PAGES = 4000;

export interface CheckpointThread {
  /** Called after each COMMIT: wakes the thread if it sleeps. Costs an atomic add and, rarely, a futex wake. */
  committed(): void;
  /** Stops the thread and waits until its connection is closed (or, if it never answers, two seconds). */
  stop(): Promise<void>;
}

export const startCheckpointThread = (file: string): CheckpointThread => {
  const signals = new Int32Array(new SharedArrayBuffer(8));
  const url = URL.createObjectURL(new Blob([THREAD_SOURCE], { type: "application/javascript" }));
  const worker = new Worker(url);
  const closed = new Promise<void>((resolve) => {
    worker.addEventListener("message", () => resolve());
    worker.addEventListener("error", () => resolve());
    worker.addEventListener("close", () => resolve());
  });
  worker.unref();
  worker.postMessage({ file, signals, gatherMs: GATHER_MS });
  let stopping: Promise<void> | undefined;
  return {
    committed: () => {
      Atomics.add(signals, 0, 1);
      Atomics.notify(signals, 0);
    },
    stop: () => {
      stopping ??= (async () => {
        Atomics.store(signals, 1, 1);
        Atomics.add(signals, 0, 1);
        Atomics.notify(signals, 0);
        // A thread that cannot answer (it never started) is not waited for long.
        await Promise.race([closed, Bun.sleep(STOP_WAIT_MS)]);
        worker.terminate();
        URL.revokeObjectURL(url);
      })();
      return stopping;
    },
  };
};
