// The SQLite and PostgreSQL migration sets describe one schema. Each set is applied to a real database of its
// kind and the catalogs are compared (sqlite_master and the pragmas against pg_catalog), after normalising how
// each dialect spells the same thing. What may differ is listed in ALLOWED, with the reason.
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { postgresMigrations } from "../../app/agent_computer/src/store/postgres/migration-set.ts";
import type { Driver, Migration } from "../../app/agent_computer/src/store/sql/db.ts";
import { migrate } from "../../app/agent_computer/src/store/sql/migrate.ts";
import { sqliteMigrations } from "../../app/agent_computer/src/store/sqlite/migration-set.ts";
import { createDriverTarget, type DriverTarget } from "../helpers/drivers.ts";
import { pgUrl } from "../helpers/stores.ts";

const storeDir = join(import.meta.dirname, "../../app/agent_computer/src/store");

/** The differences the two schemas may have; anything else fails the comparison. */
const ALLOWED = {
  // PostgreSQL announces every delivery insert with NOTIFY so wake watchers need not poll hard; SQLite has no
  // notification across processes, and its watchers poll (domain/wake/tuning.ts).
  postgresOnlyTriggers: ["deliveries.deliveries_wake_hint"],
  postgresOnlyFunctions: ["agent_computer_wake_hint"],
  // Full-text search (migration 011): SQLite indexes message bodies in an FTS5 table (with its shadow tables),
  // filled by an insert trigger; PostgreSQL indexes the same words with a GIN index on messages. Migration 014:
  // SQLite maps each message to its FTS5 rowid (message_search_rows) so a search can start from the caller's
  // messages; PostgreSQL stores each body's words (messages.body_words, generated) so neither the index recheck nor
  // ts_rank recomputes them. test/contract/mesh-search-store.test.ts holds both to the same matches.
  sqliteOnlyTables: [
    "message_search",
    "message_search_config",
    "message_search_content",
    "message_search_data",
    "message_search_docsize",
    "message_search_idx",
    "message_search_rows",
  ],
  postgresOnlyColumns: ["messages.body_words"],
  sqliteOnlyTriggers: ["messages.messages_search_insert"],
  postgresOnlyIndexes: ["messages_search"],
};
// Not compared, by design: SQLite's WITHOUT ROWID (a storage layout with no PostgreSQL counterpart; messages and
// deliveries use it), and CHECK constraints (SQLite keeps them only in the CREATE TABLE text).

describe.each([
  ["sqlite", sqliteMigrations],
  ["postgres", postgresMigrations],
] as const)("migration files [%s]", (dialect, registered) => {
  test("every numbered file in the folder is registered once, in order, with its own text", () => {
    const dir = join(storeDir, dialect, "migrations");
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".sql"))
      .sort();
    expect(
      files.every((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f)),
      files.join(" "),
    ).toBe(true);
    expect(registered.map((m) => `${String(m.version).padStart(3, "0")}_${m.name}.sql`)).toEqual(files);
    expect(registered.map((m) => m.version)).toEqual(files.map((_, i) => i + 1));
    for (const m of registered) {
      expect(m.sql, m.name).toBe(readFileSync(join(dir, `${String(m.version).padStart(3, "0")}_${m.name}.sql`), "utf8"));
    }
  });
});

test("both dialects have the same numbered files", () => {
  const names = (dialect: string) => readdirSync(join(storeDir, dialect, "migrations")).sort();
  expect(names("sqlite")).toEqual(names("postgres"));
});

interface Column {
  name: string;
  type: string;
  notNull: boolean;
  default: string | null;
}
interface Table {
  columns: Column[];
  primaryKey: string[];
  unique: string[][];
  foreignKeys: string[];
}
interface Index {
  table: string;
  unique: boolean;
  columns: string[];
  where: string | null;
}
interface Schema {
  tables: Record<string, Table>;
  indexes: Record<string, Index>;
  triggers: string[];
  functions: string[];
}

/** PostgreSQL's information_schema spells types out; SQLite keeps the declared name, which the files share. */
const PG_TYPE: Record<string, string> = {
  text: "TEXT",
  integer: "INTEGER",
  bigint: "BIGINT",
  boolean: "BOOLEAN",
  "timestamp with time zone": "TIMESTAMPTZ",
};

/** A default or a predicate without the casts PostgreSQL adds when it stores one ('x'::text, 0::bigint). */
const withoutCasts = (expression: string): string =>
  expression.replace(/::[a-z_]+( varying| precision| with(out)? time zone)?(\[\])?/g, "");

/**
 * A partial index's predicate as text both dialects agree on. PostgreSQL stores `state IN ('a', 'b')` as
 * `state = ANY (ARRAY['a'::text, 'b'::text])` and NOT IN as `<> ALL (…)`, and brackets every comparison.
 */
const predicate = (expression: string | null): string | null =>
  expression === null
    ? null
    : withoutCasts(expression)
        .replace(/<>\s*ALL\s*\(\s*ARRAY\[([^\]]*)\]\s*\)/gi, "NOT IN ($1)")
        .replace(/=\s*ANY\s*\(\s*ARRAY\[([^\]]*)\]\s*\)/gi, "IN ($1)")
        .replace(/[()\s]+/g, " ")
        .trim()
        .toLowerCase();

// SQLite lets a non-INTEGER PRIMARY KEY column of a rowid table hold NULL (a legacy quirk); PostgreSQL never
// does. Every key column counts as NOT NULL here: the code never writes a NULL key.
const notNullOrKey = (notNull: boolean, column: string, primaryKey: string[]): boolean => notNull || primaryKey.includes(column);

const sqliteSchema = (file: string): Schema => {
  const db = new Database(file, { readonly: true });
  try {
    const all = <T>(sql: string, ...params: string[]) => db.query(sql).all(...params) as T[];
    const schema: Schema = { tables: {}, indexes: {}, triggers: [], functions: [] };
    for (const { name } of all<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )) {
      const info = all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
        "SELECT * FROM pragma_table_info(?) ORDER BY cid",
        name,
      );
      const primaryKey = info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name);
      const indexes = all<{ name: string; unique: number; origin: string; partial: number }>(
        "SELECT * FROM pragma_index_list(?)",
        name,
      );
      const indexColumns = (index: string) =>
        all<{ name: string; desc: number }>(
          "SELECT name, desc FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno",
          index,
        ).map((c) => (c.desc ? `${c.name} DESC` : c.name));
      const fks = all<{ id: number; table: string; from: string; to: string; on_delete: string }>(
        "SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq",
        name,
      );
      schema.tables[name] = {
        columns: info.map((c) => ({
          name: c.name,
          type: c.type.toUpperCase(),
          notNull: notNullOrKey(c.notnull === 1, c.name, primaryKey),
          default: c.dflt_value,
        })),
        primaryKey,
        unique: indexes
          .filter((i) => i.origin === "u")
          .map((i) => indexColumns(i.name))
          .sort(),
        foreignKeys: [...new Set(fks.map((f) => f.id))]
          .map((id) => {
            const parts = fks.filter((f) => f.id === id);
            const first = parts[0] as (typeof parts)[number];
            return `(${parts.map((p) => p.from)}) -> ${first.table}(${parts.map((p) => p.to)}) on delete ${first.on_delete}`;
          })
          .sort(),
      };
      for (const index of indexes.filter((i) => i.origin === "c")) {
        const sql = all<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", index.name)[0]?.sql;
        const where = index.partial ? (sql?.slice(sql.search(/\sWHERE\s/i) + 7) ?? null) : null;
        schema.indexes[index.name] = {
          table: name,
          unique: index.unique === 1,
          columns: indexColumns(index.name),
          where: predicate(where),
        };
      }
    }
    schema.triggers = all<{ name: string }>(
      "SELECT tbl_name || '.' || name AS name FROM sqlite_master WHERE type = 'trigger' ORDER BY 1",
    ).map((t) => t.name);
    return schema;
  } finally {
    db.close();
  }
};

const ON_DELETE: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" };

const postgresSchema = async (driver: Driver): Promise<Schema> => {
  const schema: Schema = { tables: {}, indexes: {}, triggers: [], functions: [] };
  const constraints = await driver.all<{
    table: string;
    type: string;
    columns: string;
    ref: string | null;
    ref_columns: string;
    on_delete: string;
  }>(
    `SELECT c.conrelid::regclass::text AS table, c.contype AS type,
       array_to_string(array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i), ',') AS columns,
       c.confrelid::regclass::text AS ref,
       array_to_string(array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
         JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i), ',') AS ref_columns,
       c.confdeltype AS on_delete
     FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
     WHERE n.nspname = 'public' AND c.contype IN ('p', 'u', 'f')`,
  );
  const columns = await driver.all<{ table: string; name: string; type: string; nullable: string; default: string | null }>(
    `SELECT table_name AS table, column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS default
     FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  for (const table of [...new Set(columns.map((c) => c.table))].sort()) {
    const of = (type: string) => constraints.filter((c) => c.table === table && c.type === type);
    const primaryKey = of("p")[0]?.columns.split(",") ?? [];
    schema.tables[table] = {
      columns: columns
        .filter((c) => c.table === table)
        .map((c) => ({
          name: c.name,
          type: PG_TYPE[c.type] ?? c.type.toUpperCase(),
          notNull: notNullOrKey(c.nullable === "NO", c.name, primaryKey),
          default: c.default === null ? null : withoutCasts(c.default),
        })),
      primaryKey,
      unique: of("u")
        .map((c) => c.columns.split(","))
        .sort(),
      foreignKeys: of("f")
        .map((c) => `(${c.columns}) -> ${c.ref}(${c.ref_columns}) on delete ${ON_DELETE[c.on_delete]}`)
        .sort(),
    };
  }
  // Indexes created by CREATE INDEX, not the ones behind a primary key or unique constraint.
  const indexes = await driver.all<{ name: string; table: string; unique: boolean; columns: string; predicate: string | null }>(
    `SELECT i.relname AS name, t.relname AS table, ix.indisunique AS unique,
       array_to_string(array(SELECT pg_get_indexdef(ix.indexrelid, k + 1, true)
           || CASE WHEN ix.indoption[k] & 1 = 1 THEN ' DESC' ELSE '' END
         FROM generate_subscripts(ix.indkey, 1) AS k ORDER BY k), ',') AS columns,
       pg_get_expr(ix.indpred, ix.indrelid, true) AS predicate
     FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c
       WHERE c.conindid = ix.indexrelid AND c.conrelid = ix.indrelid AND c.contype IN ('p', 'u'))`,
  );
  for (const index of indexes) {
    schema.indexes[index.name] = {
      table: index.table,
      unique: index.unique,
      columns: index.columns.split(","),
      where: predicate(index.predicate),
    };
  }
  schema.triggers = (
    await driver.all<{ name: string }>(
      "SELECT tgrelid::regclass::text || '.' || tgname AS name FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1",
    )
  ).map((t) => t.name);
  schema.functions = (
    await driver.all<{ name: string }>(
      "SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1",
    )
  ).map((f) => f.name);
  return schema;
};

/** The catalog with the allowed differences taken out, so what is left must be equal. */
const comparable = (schema: Schema): Schema => ({
  tables: Object.fromEntries(
    Object.entries(schema.tables)
      .filter(([name]) => !ALLOWED.sqliteOnlyTables.includes(name))
      .map(([name, table]) => [
        name,
        { ...table, columns: table.columns.filter((c) => !ALLOWED.postgresOnlyColumns.includes(`${name}.${c.name}`)) },
      ]),
  ),
  indexes: Object.fromEntries(Object.entries(schema.indexes).filter(([name]) => !ALLOWED.postgresOnlyIndexes.includes(name))),
  triggers: schema.triggers.filter((t) => !ALLOWED.postgresOnlyTriggers.includes(t) && !ALLOWED.sqliteOnlyTriggers.includes(t)),
  functions: schema.functions.filter((f) => !ALLOWED.postgresOnlyFunctions.includes(f)),
});

const applied = async (target: DriverTarget, set: readonly Migration[]): Promise<Driver> => {
  const driver = await target.open();
  await migrate(driver, set);
  return driver;
};

// Without a PostgreSQL server there is nothing to compare with: stores.ts prints the skip (and fails in CI).
describe.runIf(pgUrl)("migration parity: SQLite against PostgreSQL catalogs", () => {
  let sqlite: DriverTarget;
  let postgres: DriverTarget;
  let sqliteCatalog: Schema;
  let postgresCatalog: Schema;
  beforeAll(async () => {
    [sqlite, postgres] = await Promise.all([createDriverTarget("sqlite"), createDriverTarget("postgres")]);
    await applied(sqlite, sqliteMigrations);
    sqliteCatalog = sqliteSchema(sqlite.location);
    postgresCatalog = await postgresSchema(await applied(postgres, postgresMigrations));
  });
  afterAll(async () => {
    await sqlite?.dispose();
    await postgres?.dispose();
  });

  test("the same tables, columns, keys and indexes; only the listed differences", () => {
    expect(Object.keys(sqliteCatalog.tables).length).toBeGreaterThan(10);
    expect(comparable(sqliteCatalog)).toEqual(comparable(postgresCatalog));
  });

  test("every allowed difference still exists (a stale entry would hide nothing and mislead)", () => {
    for (const trigger of ALLOWED.postgresOnlyTriggers) {
      expect(postgresCatalog.triggers).toContain(trigger);
      expect(sqliteCatalog.triggers).not.toContain(trigger);
    }
    for (const fn of ALLOWED.postgresOnlyFunctions) expect(postgresCatalog.functions).toContain(fn);
    for (const table of ALLOWED.sqliteOnlyTables) {
      expect(Object.keys(sqliteCatalog.tables)).toContain(table);
      expect(Object.keys(postgresCatalog.tables)).not.toContain(table);
    }
    for (const trigger of ALLOWED.sqliteOnlyTriggers) expect(sqliteCatalog.triggers).toContain(trigger);
    for (const column of ALLOWED.postgresOnlyColumns) {
      const [table, name] = column.split(".");
      expect(postgresCatalog.tables[table as string]?.columns.map((c) => c.name)).toContain(name);
      expect(sqliteCatalog.tables[table as string]?.columns.map((c) => c.name)).not.toContain(name);
    }
    for (const index of ALLOWED.postgresOnlyIndexes) {
      expect(Object.keys(postgresCatalog.indexes)).toContain(index);
      expect(Object.keys(sqliteCatalog.indexes)).not.toContain(index);
    }
  });
});
