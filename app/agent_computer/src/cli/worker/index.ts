import { type BinaryLoader, singleCommand } from "../kernel/binary.ts";

/** The worker daemon. */
export const workerBinaries: Record<string, BinaryLoader> = {
  "agent-computer-worker": singleCommand(() => import("./agent-computer-worker.ts")),
};
