// The program of the checkpoint thread, started by checkpoint-thread.ts as a Worker (and bundled into the
// compiled executable as an entry point of its own: scripts/build.ts). It sleeps in Atomics.wait until the main
// thread counts a commit, lets a few milliseconds of commits gather, checkpoints, and sleeps again: an idle
// process costs no wake-ups.
import { Database } from "bun:sqlite";

declare const self: Worker;

/** The one message the thread receives. signals[0] counts commits; signals[1] = 1 asks the thread to stop. */
export interface CheckpointWorkerStart {
  file: string;
  signals: Int32Array;
  gatherMs: number;
}

self.onmessage = ({ data }: MessageEvent<CheckpointWorkerStart>) => {
  const { file, signals, gatherMs } = data;
  const db = new Database(file);
  let seen = 0;
  while (Atomics.load(signals, 1) === 0) {
    Atomics.wait(signals, 0, seen);
    if (Atomics.load(signals, 1) !== 0) break;
    Bun.sleepSync(gatherMs);
    seen = Atomics.load(signals, 0);
    try {
      // PASSIVE never blocks a writer: it copies what it can and leaves the rest for the next pass.
      db.run("PRAGMA wal_checkpoint(PASSIVE)");
    } catch {
      // A failed pass changes nothing: the main connection's automatic checkpoint still bounds the WAL.
    }
  }
  db.close();
  self.postMessage("closed");
};
