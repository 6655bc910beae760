// The checkpoint thread of a long-lived process (the worker). In WAL mode every commit appends pages to the
// -wal file, and a checkpoint copies them back into the database file and syncs both files. Done inline, on
// the committing thread, that copy and its two fsyncs stall every write that queued behind it (bench/mesh.ts
// measured them as a fifth of a send). Here a second connection on its own thread copies pages (a PASSIVE
// checkpoint never blocks a writer) shortly after commits happen, so the main connection's own automatic
// checkpoint, kept as the safety valve, finds little left to copy and runs four times less often.
//
// One-shot commands never start it: they commit once and checkpoint inline, as SQLite does by default.
// The thread's program is checkpoint-worker.ts; the rules it keeps are listed in group-commit.ts.

import type { CheckpointWorkerStart } from "./checkpoint-worker.ts";

/** How long the thread lets commits gather before it copies them. */
const GATHER_MS = 10;
const STOP_WAIT_MS = 2000;

/**
 * The main connection's own automatic checkpoint threshold (pages) while the thread runs: four times SQLite's
 * default, so the fsyncs left on the committing thread are four times rarer. The WAL stays under ~16 MB.
 */
export const LONG_LIVED_AUTOCHECKPOINT_PAGES = 4000;

/**
 * Where the thread's program is. From source: beside this file. In the compiled executable: the entry point
 * scripts/build.ts bundles for it, named by its path under the bundle's root (app/agent_computer/src, the
 * entry points' common folder). Bun 1.4 maps neither import.meta.url (the bundler writes in the source path)
 * nor an absolute path to a bundled entry point, only this relative name; the compiled run of
 * test/e2e/sqlite-store-file.test.ts fails if it stops finding it.
 */
const workerProgram = (): string | URL =>
  Bun.main.startsWith("/$bunfs/") ? "./store/sqlite/checkpoint-worker.ts" : new URL("./checkpoint-worker.ts", import.meta.url);

export interface CheckpointThread {
  /** Called after each COMMIT: wakes the thread if it sleeps. Costs an atomic add and, rarely, a futex wake. */
  committed(): void;
  /** Stops the thread and waits until its connection is closed (or, if it never answers, two seconds). */
  stop(): Promise<void>;
}

export const startCheckpointThread = (file: string): CheckpointThread => {
  const signals = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(workerProgram());
  const closed = new Promise<void>((resolve) => {
    worker.addEventListener("message", () => resolve());
    worker.addEventListener("error", () => resolve());
    worker.addEventListener("close", () => resolve());
  });
  worker.unref();
  const start: CheckpointWorkerStart = { file, signals, gatherMs: GATHER_MS };
  worker.postMessage(start);
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
      })();
      return stopping;
    },
  };
};
