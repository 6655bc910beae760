// Stores of N agents for bench/growth.ts, filled with bulk SQL. Three agents are checked in through the domain
// (reader, writer and a template, "tpl"); every other agent, its session and its background mail are copies of
// the template's rows made by one INSERT … SELECT per table, so a store of 10,000 agents and 100,000 messages takes
// seconds. The copies take every column of the template's row except those named here, so a column that a later
// migration adds is filled as the domain filled it for the template.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { checkIn } from "../app/agent_computer/src/domain/agents/checkin.ts";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { resolvePaths } from "../app/agent_computer/src/paths.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import { dropDatabase } from "../test/helpers/pg-admin.ts";
import { depsFor, withAgents } from "./seed-mesh.ts";

/** Background messages per agent, delivered and acknowledged: the store grows with the team, as a real one does. */
export const MAIL_PER_AGENT = 10;
/** One agent in ten has this role: what a role filter (agents-list-cli --role, a broadcast's --role) narrows to. */
export const RARE_ROLE = "reviewer";
/** The agents' hosts: a team of N agents spread over this many hosts. */
export const HOSTS = 100;

/** Every rate limit off: the bench measures what a call costs, not how often it may be made. */
export const NO_RATE_LIMITS: Record<string, string> = Object.fromEntries(
  ["REGISTER", "SEND", "DELIVER"].flatMap((kind) =>
    ["NAME", "HOST"].map((scope) => [`AGENT_COMPUTER_RATE_${kind}_PER_${scope}`, "off"]),
  ),
);

export interface SeededStore {
  dialect: "sqlite" | "postgres";
  agents: number;
  /** The environment every call (in-process or spawned) gets: the store, a HOME, the rate limits off, --env. */
  env: Record<string, string>;
  /** reader.token and writer.token (0600) for --token-file. */
  tokenDir: string;
  /** Raw SQL on the store, for EXPLAIN. */
  query(text: string): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

interface Raw {
  exec(text: string): Promise<void>;
  all(text: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

const rawSqlite = (file: string): Raw => {
  const db = new Database(file);
  db.exec("PRAGMA busy_timeout = 10000");
  return {
    exec: async (text) => void db.exec(text),
    all: async (text) => db.query(text).all() as Record<string, unknown>[],
    close: async () => db.close(),
  };
};

const rawPostgres = (url: string): Raw => {
  const sql = new SQL({ url, max: 1 });
  return {
    exec: async (text) => void (await sql.unsafe(text)),
    all: async (text) => [...((await sql.unsafe(text)) as Record<string, unknown>[])],
    close: () => sql.close(),
  };
};

const columnsOf = async (raw: Raw, dialect: SeededStore["dialect"], table: string): Promise<string[]> => {
  const rows =
    dialect === "sqlite"
      ? await raw.all(`SELECT name FROM pragma_table_info('${table}')`)
      : await raw.all(
          `SELECT column_name AS name FROM information_schema.columns
           WHERE table_name = '${table}' AND table_schema = current_schema() AND is_generated = 'NEVER'
           ORDER BY ordinal_position`,
        );
  return rows.map((r) => String(r.name));
};

/**
 * count copies of the row of `table` that `where` picks (aliased t), numbered by i = 1..count: each column in
 * `overrides` takes that SQL expression (which may use i and t), every other one the template's value.
 */
const copyRows = async (
  raw: Raw,
  dialect: SeededStore["dialect"],
  table: string,
  where: string,
  count: number,
  overrides: Record<string, string>,
): Promise<void> => {
  const columns = await columnsOf(raw, dialect, table);
  const values = columns.map((c) => overrides[c] ?? `t.${c}`);
  await raw.exec(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
     INSERT INTO ${table} (${columns.join(", ")}) SELECT ${values.join(", ")} FROM ${table} t, n WHERE ${where}`,
  );
};

/** The copied agents: a-1 … a-(N-3), one in ten with the rare role, on hosts host-0 … host-99, each with mail. */
const copyTeam = async (raw: Raw, dialect: SeededStore["dialect"], copies: number, now: number): Promise<void> => {
  const name = "('a-' || i)";
  const role = `(CASE WHEN i % 10 = 0 THEN '${RARE_ROLE}' ELSE 'builder' END)`;
  await copyRows(raw, dialect, "agents", "t.name = 'tpl'", copies, {
    name,
    name_key: name,
    role,
    last_seq: String(MAIL_PER_AGENT),
  });
  await copyRows(raw, dialect, "sessions", "t.agent_name = 'tpl' AND t.ended_at IS NULL", copies, {
    id: "('ses_bench_' || i)",
    agent_name: name,
    host: "('host-' || (i % 100))",
    role,
    repo: "('repo-' || (i % 20))",
    status_line: "('working on item ' || i)",
  });
  const mail = copies * MAIL_PER_AGENT;
  await copyRows(raw, dialect, "messages", "t.sender = 'tpl'", mail, {
    id: "('msg_bg_' || i)",
    body: "('background ' || i)",
    created_at: String(now - 60_000),
  });
  await copyRows(raw, dialect, "deliveries", "t.recipient = 'writer'", mail, {
    message_id: "('msg_bg_' || i)",
    recipient: `('a-' || (((i - 1) / ${MAIL_PER_AGENT}) + 1))`,
    seq: `(((i - 1) % ${MAIL_PER_AGENT}) + 1)`,
    state: "'acked'",
    session_id: "NULL",
  });
  await raw.exec("ANALYZE");
};

/**
 * A store of `agents` live agents. SQLite: a file under a temp home. PostgreSQL: a database of its own on the
 * server of pgUrl, dropped by drop().
 */
export const seedStore = async (
  dialect: SeededStore["dialect"],
  agents: number,
  pgUrl: string | undefined,
  extraEnv: Record<string, string>,
): Promise<SeededStore> => {
  const home = mkdtempSync(join(tmpdir(), "ac-bench-growth-"));
  const env: Record<string, string> = { HOME: home, AGENT_COMPUTER_HOME: home, ...NO_RATE_LIMITS, ...extraEnv };
  let admin: SQL | undefined;
  const database = `ac_bench_growth_${process.pid}_${dialect}_${agents}`;
  if (dialect === "postgres") {
    admin = new SQL({ url: pgUrl as string, max: 1 });
    await admin.unsafe(`CREATE DATABASE ${database}`);
    const url = new URL(pgUrl as string);
    url.pathname = `/${database}`;
    env.AGENT_COMPUTER_DATABASE_URL = url.toString();
  }
  const drop = async () => {
    if (admin) {
      await dropDatabase(admin, database);
      await admin.close();
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const now = Date.now();
    const store = await openStore(env);
    const tokens = await withAgents(store, home);
    const deps = depsFor(store);
    const tpl = await checkIn(deps, {
      agentId: "tpl",
      token: undefined,
      ttlSeconds: 86_400,
      role: "builder",
      repo: "repo-0",
      caps: ["ts", "review"],
      status: "template",
    });
    // The template message whose rows the background mail copies (its delivery is the writer's).
    await sendMessage(deps, {
      from: "tpl",
      token: tpl.agent_token,
      recipients: { kind: "to", agentIds: ["writer"] },
      body: "template",
    });
    await store.close();
    const raw =
      dialect === "sqlite" ? rawSqlite(resolvePaths(env).sqliteFile) : rawPostgres(env.AGENT_COMPUTER_DATABASE_URL as string);
    try {
      await copyTeam(raw, dialect, agents - 3, now);
    } finally {
      await raw.close();
    }
    // The reader gets 50 pending messages, so every inbox read returns a full default page.
    const reopened = await openStore(env);
    for (let i = 0; i < 50; i++) {
      await sendMessage(depsFor(reopened), {
        from: "writer",
        token: tokens.writer,
        recipients: { kind: "to", agentIds: ["reader"] },
        body: `pending ${i}`,
      });
    }
    await reopened.close();
    // One connection for every query of the bench, opened at the first and closed with the store.
    let open: Raw | undefined;
    const query = (text: string) => {
      open ??=
        dialect === "sqlite" ? rawSqlite(resolvePaths(env).sqliteFile) : rawPostgres(env.AGENT_COMPUTER_DATABASE_URL as string);
      return open.all(text);
    };
    const closeAndDrop = async () => {
      await open?.close().catch(() => undefined);
      await drop();
    };
    return { dialect, agents, env, tokenDir: home, query, drop: closeAndDrop };
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
};
