// The automation repository: jobs and triggers, runs, worker environments and live workers, over one Db.
import { AUTOMATION_CHANNEL, type AutomationRepo } from "../port-automation.ts";
import { toWorker } from "./automation-rows.ts";
import { runsRepo } from "./automation-runs.ts";
import { jobsAndTriggers } from "./automation-triggers.ts";
import type { Db, Row } from "./db.ts";
import { num } from "./db.ts";

export const automationRepo = (db: Db): AutomationRepo => ({
  ...jobsAndTriggers(db),
  ...runsRepo(db),
  setEnv: async (owner, entries, now) => {
    for (const { key, value } of entries) {
      await db.run(
        `INSERT INTO automation_worker_env (owner, key, value, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (owner, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [owner, key, value, now],
      );
    }
  },
  unsetEnv: async (owner, keys) => {
    const removed: string[] = [];
    for (const key of keys) {
      if ((await db.run("DELETE FROM automation_worker_env WHERE owner = $1 AND key = $2", [owner, key])) > 0) removed.push(key);
    }
    return removed;
  },
  listEnv: async (owner) =>
    (await db.all<Row>("SELECT key, value, updated_at FROM automation_worker_env WHERE owner = $1 ORDER BY key", [owner])).map(
      (r) => ({
        key: String(r.key),
        value: String(r.value),
        updatedAt: num(r.updated_at),
      }),
    ),
  upsertWorker: async (w) => {
    await db.run(
      `INSERT INTO automation_workers (id, host, url, started_at, last_seen_at, stopped_at) VALUES ($1, $2, $3, $4, $5, NULL)
       ON CONFLICT (id) DO UPDATE SET url = excluded.url, last_seen_at = excluded.last_seen_at`,
      [w.id, w.host, w.url, w.startedAt, w.lastSeenAt],
    );
  },
  touchWorker: async (id, now, stopped) => {
    await db.run("UPDATE automation_workers SET last_seen_at = $2, stopped_at = $3 WHERE id = $1", [
      id,
      now,
      stopped ? now : null,
    ]);
  },
  liveWorkers: async (seenSince) =>
    (
      await db.all<Row>("SELECT * FROM automation_workers WHERE stopped_at IS NULL AND last_seen_at >= $1 ORDER BY started_at", [
        seenSince,
      ])
    ).map(toWorker),
  hintWorkers: async () => {
    if (db.dialect === "postgres") await db.run("SELECT pg_notify($1, '')", [AUTOMATION_CHANNEL]);
  },
});
