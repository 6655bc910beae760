// The migration runner, on every store: each file runs whole, as the database parses it, and in a transaction
// of its own, so a failing migration leaves the schema at the one before it.
import { afterEach, describe, expect, test } from "vitest";
import type { Driver, Migration } from "../../app/agent_computer/src/store/sql/db.ts";
import { migrate } from "../../app/agent_computer/src/store/sql/migrate.ts";
import { createDriverTarget, type DriverTarget, tableNames } from "../helpers/drivers.ts";
import { storeNames } from "../helpers/stores.ts";

/**
 * Semicolons at line ends inside a string literal and inside a trigger's (SQLite) or a plpgsql function's body,
 * and a comment holding one: a runner that splits the file at semicolons breaks every one of them.
 */
const wholeFileMigration: Record<"sqlite" | "postgres", string> = {
  sqlite: `-- notes; and a log of them
CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
INSERT INTO notes (body) VALUES ('first line;
second; line');
CREATE TABLE note_log (body TEXT NOT NULL);
CREATE TRIGGER notes_logged AFTER INSERT ON notes BEGIN
  INSERT INTO note_log (body) VALUES (NEW.body);
  INSERT INTO note_log (body) VALUES ('logged;');
END;
INSERT INTO notes (body) VALUES ('after the trigger');
`,
  postgres: `-- notes; and a log of them
CREATE TABLE notes (id BIGSERIAL PRIMARY KEY, body TEXT NOT NULL);
INSERT INTO notes (body) VALUES ('first line;
second; line');
CREATE TABLE note_log (body TEXT NOT NULL);
CREATE FUNCTION log_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO note_log (body) VALUES (NEW.body);
  INSERT INTO note_log (body) VALUES ('logged;');
  RETURN NEW;
END
$$;
CREATE TRIGGER notes_logged AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION log_note();
INSERT INTO notes (body) VALUES ('after the trigger');
`,
};

const recorded = async (driver: Driver): Promise<number[]> =>
  (await driver.all<{ version: unknown }>("SELECT version FROM schema_migrations ORDER BY version")).map((r) =>
    Number(r.version),
  );

describe.each(storeNames)("migration runner [%s]", (storeName) => {
  let target: DriverTarget | undefined;
  afterEach(async () => {
    await target?.dispose();
    target = undefined;
  });
  const fresh = async (): Promise<Driver> => {
    target = await createDriverTarget(storeName);
    return target.open();
  };

  test("a migration with a multi-line function or trigger body and semicolons inside string literals applies whole", async () => {
    const driver = await fresh();
    await migrate(driver, [{ version: 1, name: "notes", sql: wholeFileMigration[storeName] }]);
    expect(await driver.all("SELECT body FROM notes ORDER BY id")).toEqual([
      { body: "first line;\nsecond; line" },
      { body: "after the trigger" },
    ]);
    expect(await driver.all("SELECT body FROM note_log")).toEqual([{ body: "after the trigger" }, { body: "logged;" }]);
    expect(await recorded(driver)).toEqual([1]);
  });

  test("a failing migration leaves the schema at the previous version; fixed, it applies on the next run", async () => {
    const driver = await fresh();
    const first: Migration[] = [
      { version: 1, name: "a", sql: "CREATE TABLE a (k TEXT PRIMARY KEY);\nINSERT INTO a (k) VALUES ('one');" },
      { version: 2, name: "b", sql: "CREATE TABLE b (k TEXT PRIMARY KEY);" },
      {
        version: 3,
        name: "c",
        sql: "CREATE TABLE c (k TEXT PRIMARY KEY);\nINSERT INTO a (k) VALUES ('two');\nINSERT INTO no_such_table (k) VALUES ('x');",
      },
    ];
    await expect(migrate(driver, first)).rejects.toThrow(/no_such_table/);
    expect(await recorded(driver)).toEqual([1, 2]);
    expect(await tableNames(driver)).toEqual(["a", "b", "schema_migrations"]);
    expect(await driver.all("SELECT k FROM a")).toEqual([{ k: "one" }]);

    const fixed = [...first.slice(0, 2), { version: 3, name: "c", sql: "CREATE TABLE c (k TEXT PRIMARY KEY);" }];
    await migrate(driver, fixed);
    expect(await recorded(driver)).toEqual([1, 2, 3]);
    expect(await tableNames(driver)).toEqual(["a", "b", "c", "schema_migrations"]);
  });

  test("runners started together apply each migration once; a later file is picked up by the next run", async () => {
    const drivers = [await fresh(), ...(await Promise.all([1, 2, 3].map(() => (target as DriverTarget).open())))];
    const set: Migration[] = [
      { version: 1, name: "a", sql: "CREATE TABLE a (k TEXT PRIMARY KEY);" },
      { version: 2, name: "b", sql: "CREATE TABLE b (k TEXT PRIMARY KEY);\nINSERT INTO b (k) VALUES ('once');" },
    ];
    await Promise.all(drivers.map((d) => migrate(d, set)));
    expect(await recorded(drivers[0] as Driver)).toEqual([1, 2]);
    expect(await drivers[0]?.all("SELECT k FROM b")).toEqual([{ k: "once" }]);
    // A numbered file added later in the same style, as a branch landing after the others does.
    const later = [...set, { version: 3, name: "c", sql: "CREATE TABLE c (k TEXT PRIMARY KEY);" }];
    await Promise.all(drivers.map((d) => migrate(d, later)));
    expect(await recorded(drivers[0] as Driver)).toEqual([1, 2, 3]);
  });
});
