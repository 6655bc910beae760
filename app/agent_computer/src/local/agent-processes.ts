// The processes agents registered on this host with (--agent-pid and friends). A pid only means something on its own
// host, so it is kept here, in 0600 files of the state directory, one directory per store, and never in a (possibly
// shared) store. node:fs and the private-file helpers load only when a record is read or written: the commands that
// never look at a process do not pay for them.
import type { Paths } from "../paths.ts";

/** The process an agent registered on this host with (--agent-pid, --agent-pid-start, --host-shell-pids). */
export interface LocalProcess {
  agentPid: number | null;
  agentPidStart: string | null;
  hostShellPids: number[] | null;
}

/**
 * Where this host keeps the processes of the agents registered on it, per store: a pid means something only on
 * its own host, so it lives in the host's state directory and never in a (possibly shared) store.
 */
export interface LocalProcesses {
  read(agentId: string): LocalProcess | undefined;
  /** null forgets it (a registration with neither --agent-pid nor --host-shell-pids). */
  write(agentId: string, process: LocalProcess | null): void;
}

/** The store these records belong to, without secrets: the SQLite file, or the PostgreSQL user, host, port and database. */
const storeKey = (env: Readonly<Record<string, string | undefined>>, paths: Paths): string => {
  const url = env.AGENT_COMPUTER_DATABASE_URL;
  const parsed = url ? URL.parse(url) : null;
  const label = !url
    ? `sqlite:${paths.sqliteFile}`
    : parsed
      ? `postgres://${decodeURIComponent(parsed.username)}@${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`
      : `postgres:${url}`;
  return new Bun.CryptoHasher("sha256").update(label).digest("hex").slice(0, 16);
};

const isProcess = (value: unknown): value is LocalProcess => {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<LocalProcess>;
  return (
    (v.agentPid === null || Number.isInteger(v.agentPid)) &&
    (v.agentPidStart === null || typeof v.agentPidStart === "string") &&
    (v.hostShellPids === null || (Array.isArray(v.hostShellPids) && v.hostShellPids.every(Number.isInteger)))
  );
};

/** This host's records for the store the environment names: <state dir>/processes/<16 hex of the store>/<agent>.json. */
export const agentProcesses = (env: Readonly<Record<string, string | undefined>>, paths: Paths): LocalProcesses => {
  // Hashed at the first use: most commands never look at a process.
  let named: string | undefined;
  const dirOf = () => (named ??= `${paths.stateDir}/processes/${storeKey(env, paths)}`);
  const fileName = (agentId: string) => `${agentId}.json`;
  const files = () => require("./private-files.ts") as typeof import("./private-files.ts");
  return {
    read: (agentId) => {
      try {
        const text = files().readTextIfPresent(`${dirOf()}/${fileName(agentId)}`);
        const value: unknown = text === undefined ? undefined : JSON.parse(text);
        // A damaged record is no evidence: the agent's liveness falls back to its age.
        return isProcess(value) ? value : undefined;
      } catch {
        return undefined;
      }
    },
    write: (agentId, process) => {
      if (process === null) files().removePrivateFile(dirOf(), fileName(agentId));
      else {
        files().ensurePrivateDir(`${paths.stateDir}/processes`);
        files().writePrivateFile(dirOf(), fileName(agentId), `${JSON.stringify(process)}\n`);
      }
    },
  };
};
