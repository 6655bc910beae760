// Migration 014 on a store that already holds mail: SQLite maps the FTS5 rows written before it (so the caller plan
// finds old messages), PostgreSQL fills the stored words of existing rows; messages written after it are found too,
// and both plans agree. Fails if the mapping or the new insert trigger loses a row.
import { afterEach, describe, expect, test } from "vitest";
import { postgresMigrations } from "../../app/agent_computer/src/store/postgres/migration-set.ts";
import type { Driver, Migration } from "../../app/agent_computer/src/store/sql/db.ts";
import { searchMessages } from "../../app/agent_computer/src/store/sql/mesh-search.ts";
import { migrate } from "../../app/agent_computer/src/store/sql/migrate.ts";
import { sqliteMigrations } from "../../app/agent_computer/src/store/sqlite/migration-set.ts";
import { createDriverTarget, type DriverTarget } from "../helpers/drivers.ts";
import { storeNames } from "../helpers/stores.ts";

const SEARCH_FLAT = 14;

const write = async (driver: Driver, id: string, sender: string, recipient: string, seq: number, body: string) => {
  await driver.run("INSERT INTO messages (id, sender, kind, body, created_at) VALUES ($1, $2, 'message', $3, $4)", [
    id,
    sender,
    body,
    seq,
  ]);
  await driver.run("INSERT INTO deliveries (message_id, recipient, seq, state) VALUES ($1, $2, $3, 'acked')", [
    id,
    recipient,
    seq,
  ]);
};

describe.each(storeNames)("search across migration 014 [%s]", (storeName) => {
  let target: DriverTarget | undefined;
  afterEach(async () => target?.dispose());

  test("messages from before and after the migration are found by both plans, in the same order", async () => {
    target = await createDriverTarget(storeName);
    const driver = await target.open();
    const set: readonly Migration[] = storeName === "sqlite" ? sqliteMigrations : postgresMigrations;
    await migrate(driver, set.slice(0, SEARCH_FLAT - 1));
    await write(driver, "m1", "writer", "reader", 1, "old rollback note");
    await write(driver, "m2", "writer", "other", 2, "old rollback elsewhere");
    await write(driver, "m3", "reader", "writer", 3, "old rollback rollback sent");
    await migrate(driver, set);
    await write(driver, "m4", "writer", "reader", 4, "new rollback note");
    await write(driver, "m5", "writer", "other", 5, "new rollback elsewhere");

    const byWords = (await searchMessages(driver, "reader", ["rollback"], 10, "words")).hits;
    expect(byWords.map((h) => h.id).sort()).toEqual(["m1", "m3", "m4"]);
    expect(byWords[0]?.id).toBe("m3");
    expect((await searchMessages(driver, "reader", ["rollback"], 10, "caller")).hits).toEqual(byWords);
    expect(await searchMessages(driver, "reader", ["rollback", "old"], 10, "caller")).toEqual(
      await searchMessages(driver, "reader", ["rollback", "old"], 10, "words"),
    );
    expect((await searchMessages(driver, "reader", ["new"], 10, "caller")).hits.map((h) => h.id)).toEqual(["m4"]);
  });
});
