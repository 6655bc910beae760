// A store suite's PostgreSQL database is a copy of the run's migrated template: its migrations were recorded once,
// when the template was made (their applied_at is older than the copy), and it is the complete schema all the same.
import { describe, expect, test } from "vitest";
import { createStoreTarget, pgUrl } from "../helpers/stores.ts";

describe.skipIf(!pgUrl)("the run's PostgreSQL template", () => {
  test("a store target's database comes migrated from the template, not migrated again", async () => {
    expect(process.env.AC_TEST_PG_TEMPLATE).toMatch(/^ac_tpl_/);
    const before = Date.now();
    const target = await createStoreTarget("postgres");
    try {
      const store = await target.open();
      await store.close();
      const rows = await target.sql("SELECT version, applied_at FROM schema_migrations ORDER BY version");
      expect(rows.length).toBeGreaterThan(10);
      expect(rows.filter((row) => Number(row.applied_at) >= before)).toEqual([]);
    } finally {
      await target.dispose();
    }
  });
});
