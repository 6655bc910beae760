import type { BinaryLoader } from "../kernel/binary.ts";

/** File reservations and their git guard. */
export const reserveBinaries: Record<string, BinaryLoader> = {
  "agent-reserve-cli": () => import("./agent-reserve-cli.ts").then((m) => m.default),
};
