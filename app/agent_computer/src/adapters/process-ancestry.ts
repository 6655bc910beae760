// Linux process identity from procfs: a pid is only meaningful with its start time and the boot it belongs to,
// so a reused pid or a reboot is never mistaken for the process recorded earlier. Elsewhere everything is null.
import { readFileSync } from "node:fs";

export interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks after boot. */
  startTicks: string;
  bootId: string;
}

interface ProcStat {
  ppid: number;
  tpgid: number;
  startTicks: string;
}

const MAX_HOPS = 256;

export const currentBootId = (): string | null => {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
  } catch {
    return null;
  }
};

const readStat = (pid: number): ProcStat | null => {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields[0] === "Z" || fields[0] === "X") return null;
  const startTicks = fields[19];
  if (startTicks === undefined) return null;
  return { ppid: Number(fields[1]), tpgid: Number(fields[5]), startTicks };
};

export const processIdentity = (pid: number): ProcessIdentity | null => {
  const bootId = currentBootId();
  const stat = readStat(pid);
  return bootId && stat ? { pid, startTicks: stat.startTicks, bootId } : null;
};

/** This process and its ancestors, nearest first (at most 256 hops); empty without procfs. */
export const ancestry = (pid: number = process.pid): ProcessIdentity[] => {
  const bootId = currentBootId();
  if (!bootId) return [];
  const chain: ProcessIdentity[] = [];
  let current = pid;
  for (let hop = 0; hop < MAX_HOPS && current > 0; hop += 1) {
    const stat = readStat(current);
    if (!stat) break;
    chain.push({ pid: current, startTicks: stat.startTicks, bootId });
    current = stat.ppid;
  }
  return chain;
};

/** The foreground process group of this process's controlling terminal (-1 / null when it has none). */
export const terminalForegroundGroup = (pid: number = process.pid): number | null => {
  const tpgid = readStat(pid)?.tpgid;
  return tpgid !== undefined && tpgid > 0 ? tpgid : null;
};

export const sameProcess = (a: ProcessIdentity, b: ProcessIdentity): boolean =>
  a.pid === b.pid && a.startTicks === b.startTicks && a.bootId === b.bootId;
