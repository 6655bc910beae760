// This host's auto-wake registrations: which local agent is in which Herdr pane. A pane id is host-local, so it
// lives here, in 0600 files under a 0700 directory of the state dir, and never in a (possibly shared) store.
// Everything is kept per store identity, so two stores used on one host never wake each other's agents.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import * as z from "zod/mini";
import { AGENT_ID_PATTERN } from "../agent-id.ts";
import type { Paths } from "../paths.ts";
import { ensurePrivateDir, readTextIfPresent, removePrivateFile, writePrivateFile } from "./private-files.ts";

export const HERDR_PANE_PATTERN = /^[A-Za-z0-9_:.-]{1,64}$/;

const registrationSchema = z.object({
  agent_id: z.string().check(z.regex(AGENT_ID_PATTERN)),
  pane_id: z.string().check(z.regex(HERDR_PANE_PATTERN)),
  session_id: z.string().check(z.minLength(1), z.maxLength(200)),
  /** Herdr's terminal id when armed: another terminal in the pane means another agent, so the arming lapses. */
  terminal_id: z.string().check(z.minLength(1), z.maxLength(200)),
  kind: z.nullable(z.string().check(z.maxLength(64))),
  /** How the arming agent reached its Herdr server (HERDR_SOCKET_PATH, HERDR_SESSION, XDG_CONFIG_HOME). */
  herdr_env: z.record(z.string(), z.string()),
  /**
   * The absolute herdr executable the arming agent used: whichever process later delivers the wake (a worker
   * started without herdr on its PATH) runs exactly this one. Absent in registrations armed before it was kept.
   */
  herdr_bin: z.optional(z.string().check(z.minLength(2), z.maxLength(4096), z.startsWith("/"))),
  armed_at: z.number(),
  /**
   * Set when the agent was armed in a tmux pane (then pane_id is the pane's host-unique key and terminal_id its
   * process): the server socket and pane to type into, and the process recorded there at arming.
   */
  tmux: z.optional(
    z.object({
      bin: z.string().check(z.minLength(2), z.maxLength(4096), z.startsWith("/")),
      socket: z.string().check(z.minLength(2), z.maxLength(4096), z.startsWith("/")),
      pane: z.string().check(z.regex(/^%[0-9]{1,9}$/)),
      pane_pid: z.number().check(z.int(), z.positive()),
      command: z.string().check(z.maxLength(256)),
    }),
  ),
});
export type WakeRegistration = z.output<typeof registrationSchema>;

/** Which store this is, without secrets: the SQLite file, or the PostgreSQL user, host, port and database. */
export const storeLabel = (env: Readonly<Record<string, string | undefined>>, paths: Paths): string => {
  const url = env.AGENT_COMPUTER_DATABASE_URL;
  if (!url) return `sqlite:${resolve(paths.sqliteFile)}`;
  try {
    const parsed = new URL(url);
    return `postgres://${decodeURIComponent(parsed.username)}@${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return `postgres:${new Bun.CryptoHasher("sha256").update(url).digest("hex")}`;
  }
};

/** The local wake directory of this store: <state dir>/wake/<16 hex of the store label's SHA-256>. */
export const wakeDirFor = (env: Readonly<Record<string, string | undefined>>, paths: Paths): string =>
  join(paths.stateDir, "wake", new Bun.CryptoHasher("sha256").update(storeLabel(env, paths)).digest("hex").slice(0, 16));

const LABEL_FILE = "store.txt";

/** Creates the wake directory (0700, with its parent) and records the store label beside it for people. */
export const ensureWakeDir = (wakeDir: string, label: string): string => {
  ensurePrivateDir(join(wakeDir, ".."));
  ensurePrivateDir(wakeDir);
  if (!existsSync(join(wakeDir, LABEL_FILE))) writePrivateFile(wakeDir, LABEL_FILE, `${label}\n`);
  return wakeDir;
};

const agentsDir = (wakeDir: string): string => join(wakeDir, "agents");
const nameOf = (agentId: string): string => `${agentId}.json`;

/** Atomic replace: a watcher never reads a half-written registration. */
export const writeRegistration = (wakeDir: string, registration: WakeRegistration): void => {
  const valid = registrationSchema.parse(registration);
  writePrivateFile(agentsDir(wakeDir), nameOf(valid.agent_id), `${JSON.stringify(valid, null, 2)}\n`);
};

export const removeRegistration = (wakeDir: string, agentId: string): void => {
  removePrivateFile(agentsDir(wakeDir), nameOf(agentId));
};

const parse = (file: string): WakeRegistration | undefined => {
  try {
    const text = readTextIfPresent(file);
    return text === undefined ? undefined : registrationSchema.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
};

export const readRegistration = (wakeDir: string, agentId: string): WakeRegistration | undefined =>
  parse(join(agentsDir(wakeDir), nameOf(agentId)));

/** Every valid registration; unreadable or malformed files are skipped (and never trusted). */
export const listRegistrations = (wakeDir: string): WakeRegistration[] => {
  const dir = agentsDir(wakeDir);
  if (!existsSync(dir)) return [];
  const found: WakeRegistration[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".json")) continue;
    const registration = parse(join(dir, name));
    // The file name must be the agent it claims to be.
    if (registration && name === nameOf(registration.agent_id)) found.push(registration);
  }
  return found;
};

/** A cheap change detector for a watcher's poll loop: the registrations directory's mtime (renames bump it). */
export const registrationsVersion = (wakeDir: string): number => {
  try {
    return statSync(agentsDir(wakeDir)).mtimeMs;
  } catch {
    return -1;
  }
};

/** The registrations of one wake directory as a watcher reads them (structurally the watcher's WakeRegistry). */
export const localWakeRegistry = (wakeDir: string) => ({
  version: () => registrationsVersion(wakeDir),
  list: () => listRegistrations(wakeDir),
  /** Removes the arming unless the agent re-armed since (another session, pane or terminal). */
  disarm: (registration: WakeRegistration): void => {
    const current = readRegistration(wakeDir, registration.agent_id);
    const same =
      current?.session_id === registration.session_id &&
      current.pane_id === registration.pane_id &&
      current.terminal_id === registration.terminal_id;
    if (same) removeRegistration(wakeDir, registration.agent_id);
  },
});
