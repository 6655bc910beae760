// Facts about this machine that liveness rests on: its stable id and whether a process still runs.
// Files are read with Bun.file: node:fs costs a command about two milliseconds of start-up to load, so it is
// loaded only by the process probe, which few commands need.

export interface PidStatus {
  exists: boolean;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot); null where procfs is missing. */
  startTime: string | null;
}

/** A small text file's trimmed content, or undefined when it is missing, unreadable or blank. */
const readTrimmed = async (file: string): Promise<string | undefined> => {
  try {
    return (await Bun.file(file).text()).trim() || undefined;
  } catch {
    return undefined;
  }
};

/**
 * This machine's host name (what os.hostname() returns), from procfs where there is one: node:os (about a
 * millisecond of start-up) is loaded only without it.
 */
export const hostName = async (): Promise<string> =>
  (await readTrimmed("/proc/sys/kernel/hostname")) ?? (require("node:os") as typeof import("node:os")).hostname();

/**
 * Every address on this machine's interfaces, loopback included, read afresh on each call (a lease may change them).
 * node:os is loaded only here and by hostName's fallback: only the worker asks.
 */
export const localAddresses = (): string[] =>
  Object.values((require("node:os") as typeof import("node:os")).networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => entry.address),
  );

/**
 * The Unix user this process runs as: USER or LOGNAME, else the account's name, else uid<n> (Bun's userInfo answers
 * "unknown" where the environment names no user).
 */
export const unixUserName = (env: Record<string, string | undefined>): string => {
  const fromEnv = env.USER || env.LOGNAME;
  if (fromEnv) return fromEnv;
  const info = (require("node:os") as typeof import("node:os")).userInfo();
  return info.username && info.username !== "unknown" ? info.username : `uid${info.uid}`;
};

const MACHINE_ID_FILES = ["/etc/machine-id", "/var/lib/dbus/machine-id"];

/** AGENT_COMPUTER_HOST_ID, else /etc/machine-id, else the hostname (marked so it never equals a machine id). */
export const localHostId = async (env: Record<string, string | undefined>): Promise<string> => {
  const configured = env.AGENT_COMPUTER_HOST_ID?.trim();
  if (configured) return configured;
  for (const file of MACHINE_ID_FILES) {
    const id = await readTrimmed(file);
    if (id) return id;
  }
  return `hostname:${await hostName()}`;
};

const fs = (): typeof import("node:fs") => require("node:fs") as typeof import("node:fs");

const hasProcfs = (): boolean => fs().existsSync("/proc/self/stat");

/**
 * Whether `pid` runs on this host and when it started. A zombie counts as gone: it is dead, merely not
 * yet reaped by its parent. Without procfs only existence is known (signal 0), not the start time.
 */
export const probePid = (pid: number): PidStatus => {
  let stat: string;
  try {
    stat = fs().readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    if (hasProcfs()) return { exists: false, startTime: null };
    try {
      process.kill(pid, 0);
      return { exists: true, startTime: null };
    } catch (error) {
      return { exists: (error as NodeJS.ErrnoException).code === "EPERM", startTime: null };
    }
  }
  // The command name (field 2) may hold spaces and parentheses, so fields are counted after its last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  if (state === "Z" || state === "X") return { exists: false, startTime: null };
  return { exists: true, startTime: fields[19] ?? null };
};
