// The name `ps` shows for this process. Bun accepts process.title but shows nothing of it, so on Linux the name is
// written to /proc/self/comm as well: the COMMAND column of `ps -o comm` and `top`, which the kernel cuts at 15 bytes.
// The full name in `ps -o args` comes from the launcher, which execs the compiled form through a link of that name.
import { writeFileSync } from "node:fs";

/** Longest process name the kernel keeps (TASK_COMM_LEN less its NUL). */
export const COMM_BYTES = 15;

export const nameThisProcess = (name: string): void => {
  process.title = name;
  try {
    writeFileSync("/proc/self/comm", name.slice(0, COMM_BYTES));
  } catch {
    // Not Linux, or procfs is not mounted: the name is cosmetic.
  }
};
