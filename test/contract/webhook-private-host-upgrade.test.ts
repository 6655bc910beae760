// Migration 016 on a store that already holds webhook endpoints: an endpoint added with --allow-private before it is
// bound to its owner's registering host, or to no host at all when that is unknown (never to every host); a public
// endpoint stays deliverable by any worker.
import { afterEach, describe, expect, test } from "vitest";
import { postgresMigrations } from "../../app/agent_computer/src/store/postgres/migration-set.ts";
import type { Migration } from "../../app/agent_computer/src/store/sql/db.ts";
import { migrate } from "../../app/agent_computer/src/store/sql/migrate.ts";
import { sqliteMigrations } from "../../app/agent_computer/src/store/sqlite/migration-set.ts";
import { createDriverTarget, type DriverTarget } from "../helpers/drivers.ts";
import { storeNames } from "../helpers/stores.ts";

const PRIVATE_HOST = 16;

describe.each(storeNames)("webhook endpoints across migration 016 [%s]", (storeName) => {
  let target: DriverTarget | undefined;
  afterEach(async () => target?.dispose());

  test("earlier private endpoints are bound to their owner's host, or to none; public ones to none", async () => {
    target = await createDriverTarget(storeName);
    const driver = await target.open();
    const set: readonly Migration[] = storeName === "sqlite" ? sqliteMigrations : postgresMigrations;
    await migrate(driver, set.slice(0, PRIVATE_HOST - 1));
    for (const [name, hostId] of [
      ["known", "host-a"],
      ["unknown", null],
    ] as const) {
      await driver.run(
        "INSERT INTO agents (name, token_hash, host_id, created_at, updated_at, last_seen_at) VALUES ($1, 'h', $2, 0, 0, 0)",
        [name, hostId],
      );
    }
    for (const [id, owner, allowPrivate] of [
      ["whk_private_known", "known", 1],
      ["whk_private_unknown", "unknown", 1],
      ["whk_public", "known", 0],
    ] as const) {
      await driver.run(
        `INSERT INTO webhook_endpoints (id, owner, url, events, secret, allow_private, state, failed_streak, created_at, updated_at)
         VALUES ($1, $2, 'http://127.0.0.1:9/x', ',message,', 'whsec_x', $3, 'active', 0, 0, 0)`,
        [id, owner, allowPrivate],
      );
    }
    await migrate(driver, set);
    const rows = await driver.all<{ id: string; private_host: string | null }>(
      "SELECT id, private_host FROM webhook_endpoints ORDER BY id",
    );
    expect(rows.map((r) => [r.id, r.private_host])).toEqual([
      ["whk_private_known", "host-a"],
      ["whk_private_unknown", ""],
      ["whk_public", null],
    ]);
  });
});
