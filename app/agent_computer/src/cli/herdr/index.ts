import type { BinaryLoader } from "../kernel/binary.ts";

/** The Herdr coordination binaries. */
export const herdrBinaries: Record<string, BinaryLoader> = {
  "herdr-agent-control": () => import("./agent-control.ts").then((m) => m.default),
  "herdr-lease-cli": () => import("./lease-cli.ts").then((m) => m.default),
  "herdr-inspect-cli": () => import("./inspect-cli.ts").then((m) => m.default),
};
