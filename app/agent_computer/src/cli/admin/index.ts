import type { BinaryLoader } from "../kernel/binary.ts";

/** The operator's binary. */
export const adminBinaries: Record<string, BinaryLoader> = {
  "agent-computer-admin": () => import("./agent-computer-admin.ts").then((m) => m.default),
};
