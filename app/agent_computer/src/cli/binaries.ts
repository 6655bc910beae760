import { adminBinaries } from "./admin/index.ts";
import { automationBinaries } from "./automation/index.ts";
import { herdrBinaries } from "./herdr/index.ts";
import { identityBinaries } from "./identity/index.ts";
import type { BinaryLoader } from "./kernel/binary.ts";
import { meshBinaries } from "./mesh/index.ts";
import { reserveBinaries } from "./reserve/index.ts";
import { workerBinaries } from "./worker/index.ts";

/** Every binary the package installs, by the name it is invoked as. bin/ is generated from this list. */
export const binaries: Record<string, BinaryLoader> = {
  ...meshBinaries,
  ...identityBinaries,
  ...automationBinaries,
  ...workerBinaries,
  ...herdrBinaries,
  ...reserveBinaries,
  ...adminBinaries,
};

/**
 * Binaries that run for long (daemons): their launchers keep JavaScriptCore's JIT on (scripts/launcher.sh) and
 * their SQLite store checkpoints on a thread of its own (store/sqlite/checkpoint-thread.ts).
 */
export const longRunning: ReadonlySet<string> = new Set(["agent-computer-worker"]);
