// The embedded default: the first command creates and migrates the SQLite store, private to its owner.
import { Database } from "bun:sqlite";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { sqliteMigrations } from "../../app/agent_computer/src/store/sqlite/migration-set.ts";
import { startDaemon } from "../helpers/automation.ts";
import { binaryForm, runBin } from "../helpers/bin.ts";
import { pollUntil } from "../helpers/wait.ts";

/** A machine where agent-computer never ran: the state dir comes from XDG_STATE_HOME and does not exist yet. */
const freshMachine = () => {
  const root = mkdtempSync(join(tmpdir(), "ac-first-"));
  const stateDir = join(root, "xdg-state", "agent-computer");
  const env = {
    HOME: join(root, "home"),
    XDG_STATE_HOME: join(root, "xdg-state"),
    AGENT_COMPUTER_HOME: undefined,
    AGENT_COMPUTER_DATABASE_URL: undefined,
  };
  return { env, stateDir, storeFile: join(stateDir, "agent-computer.sqlite") };
};

const modeOf = (path: string): number => statSync(path).mode & 0o777;

/** The store file and whichever of its WAL companions exist. */
const storeFiles = (storeFile: string): string[] =>
  [storeFile, `${storeFile}-wal`, `${storeFile}-shm`].filter((f) => existsSync(f));

test("the first command creates the state dir 0700 and the store 0600, with every migration applied", async () => {
  const { env, stateDir, storeFile } = freshMachine();
  expect(existsSync(stateDir)).toBe(false);
  const first = await runBin("agent-checkin-cli", ["--agent-id", "first", "--confirm", "--json"], { env });
  expect(first.exitCode).toBe(0);
  expect(modeOf(stateDir)).toBe(0o700);
  // The WAL and its index are kept for the next command (store/sqlite/driver.ts), private like the store.
  expect(storeFiles(storeFile)).toHaveLength(3);
  for (const file of storeFiles(storeFile)) expect(modeOf(file), file).toBe(0o600);
  const db = new Database(storeFile, { readonly: true });
  try {
    const versions = db.query<{ version: number }, []>("SELECT version FROM schema_migrations ORDER BY version").all();
    expect(versions.map((v) => v.version)).toEqual(sqliteMigrations.map((m) => m.version));
    expect(db.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    expect(db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM agents WHERE name = 'first'").get()?.n).toBe(1);
  } finally {
    db.close();
  }
});

test("a state dir and store whose modes were loosened are made private again by the next command", async () => {
  const { env, stateDir, storeFile } = freshMachine();
  expect((await runBin("agent-checkin-cli", ["--agent-id", "first", "--confirm"], { env })).exitCode).toBe(0);
  chmodSync(stateDir, 0o755);
  chmodSync(storeFile, 0o644);
  chmodSync(`${storeFile}-wal`, 0o644);
  chmodSync(`${storeFile}-shm`, 0o666);
  const list = await runBin("agents-list-cli", ["--json"], { env });
  expect(list.exitCode).toBe(0);
  expect(modeOf(stateDir)).toBe(0o700);
  for (const file of storeFiles(storeFile)) expect(modeOf(file), file).toBe(0o600);
});

test("a command's writes are in the database file itself when it exits: the WAL it keeps was checkpointed", async () => {
  const { env, storeFile } = freshMachine();
  expect((await runBin("agent-checkin-cli", ["--agent-id", "first", "--confirm"], { env })).exitCode).toBe(0);
  expect((await runBin("agent-checkin-cli", ["--agent-id", "second", "--confirm"], { env })).exitCode).toBe(0);
  // The database file alone, without the WAL beside it: what a checkpoint copied is all it has.
  const alone = join(mkdtempSync(join(tmpdir(), "ac-alone-")), "copy.sqlite");
  copyFileSync(storeFile, alone);
  const db = new Database(alone, { readonly: true });
  try {
    const names = db.query<{ name: string }, []>("SELECT name FROM agents ORDER BY name").all();
    expect(names.map((n) => n.name)).toEqual(["first", "second"]);
  } finally {
    db.close();
  }
});

/** How many descriptors the process holds on the file: one per SQLite connection that opened it. */
const descriptorsOn = (pid: number, file: string): number =>
  readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
    } catch {
      return false; // closed since the listing
    }
  }).length;

test(`the worker (${binaryForm} form) checkpoints on a thread of its own: a second connection to the store`, async () => {
  const { env, stateDir, storeFile } = freshMachine();
  expect((await runBin("agent-checkin-cli", ["--agent-id", "first", "--confirm"], { env })).exitCode).toBe(0);
  const daemon = await startDaemon({
    HOME: env.HOME,
    AGENT_COMPUTER_HOME: stateDir,
    AGENT_COMPUTER_DATABASE_URL: "",
    AGENT_COMPUTER_FORM: binaryForm,
  });
  try {
    const pid = daemon.process.pid as number;
    // The main connection and the checkpoint thread's: a thread whose program failed to load never opens one.
    const both = () => descriptorsOn(pid, storeFile) === 2 || undefined;
    expect(await pollUntil(both, { timeoutMs: 20_000, stepMs: 50, what: "the checkpoint thread's connection" })).toBe(true);
  } finally {
    daemon.process.kill("SIGTERM");
    await daemon.process;
  }
});
