import type { BinaryLoader } from "./kernel/binary.ts";
import { meshBinaries } from "./mesh/index.ts";

/** Every binary the package installs, by the name it is invoked as. bin/ is generated from this list. */
export const binaries: Record<string, BinaryLoader> = {
  ...meshBinaries,
};
