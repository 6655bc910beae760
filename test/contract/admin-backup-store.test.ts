// agent-computer-admin backup and restore against every store. SQLite: backups taken while another process commits
// pairs of rows are each the database as of one commit (every pair whole), and a restored one opens, migrates and
// holds the agents, messages and jobs. PostgreSQL: pg_dump and pg_restore into an empty database, the same round
// trip. A target that is not empty is refused and left as it was.
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { backupStore } from "../../app/agent_computer/src/store/admin/backup-store.ts";
import { restoreStore } from "../../app/agent_computer/src/store/admin/restore-store.ts";
import { openStore } from "../../app/agent_computer/src/store/open.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { dropDatabase } from "../helpers/pg-admin.ts";
import { forgetDatabase, rememberDatabase } from "../helpers/scratch-databases.ts";
import { pgUrl, storeNames } from "../helpers/stores.ts";

const seed = async (mesh: MeshAgents): Promise<string> => {
  await mesh.join("keeper");
  await mesh.join("reader");
  const sent = await sendMessage(mesh.deps(), {
    from: "keeper",
    token: mesh.token("keeper"),
    recipients: { kind: "to", agentIds: ["reader"] },
    body: "survives the round trip",
  });
  await mesh.target.sql(
    "INSERT INTO automation_jobs (id, owner, label, dir, timeout_seconds, created_at) VALUES ('job_kept', 'keeper', 'nightly', '/x', 60, 1)",
  );
  return sent.id;
};

/** What a round trip must keep, read through the store as any command would. */
const contentOf = async (env: Record<string, string>) => {
  const store = await openStore(env);
  try {
    return await store.read(async (tx) => ({
      agents: (await tx.identity.getAgent("keeper"))?.agentId,
      job: (await tx.automation.getJob("job_kept"))?.label,
    }));
  } finally {
    await store.close();
  }
};

// A second process that commits a message and its delivery together, again and again, until told to stop.
const WRITER = `
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
const [file, stop] = process.argv.slice(-2);
const db = new Database(file);
db.run("PRAGMA busy_timeout = 5000");
const message = db.prepare("INSERT INTO messages (id, sender, kind, body, created_at) VALUES (?1, 'writer', 'message', 'w', 1)");
const delivery = db.prepare("INSERT INTO deliveries (message_id, recipient, seq, state) VALUES (?1, 'ghost', ?2, 'acked')");
const started = Date.now();
let i = 0;
while (!existsSync(stop) && Date.now() - started < 20000) {
  i++;
  db.transaction(() => { message.run("w" + i); delivery.run("w" + i, i); })();
}
console.log(i);
`;

describe.each(storeNames)("backup and restore [%s]", (storeName) => {
  let mesh: MeshAgents;
  let messageId: string;
  let dir: string;
  const env = (): Record<string, string> => ({ ...mesh.target.env, PATH: process.env.PATH ?? "/usr/bin:/bin" });

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    messageId = await seed(mesh);
    dir = mesh.target.env.AGENT_COMPUTER_HOME as string;
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("a backup never overwrites a file, and its file is private", async () => {
    const existing = join(dir, "..", `existing-${storeName}.bak`);
    writeFileSync(existing, "keep me");
    expect((await failure(backupStore(env(), existing)))?.code).toBe("CONFLICT");
    expect(await Bun.file(existing).text()).toBe("keep me");
    const fresh = join(dir, "..", `fresh-${storeName}.bak`);
    const result = await backupStore(env(), fresh);
    expect(result).toMatchObject({ dialect: storeName, file: fresh, method: storeName === "sqlite" ? "vacuum_into" : "pg_dump" });
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    expect(result.bytes).toBe(statSync(fresh).size);
  });

  if (storeName === "sqlite") {
    test("backups taken while another process writes are each one commit's database, and restore round-trips", async () => {
      const stop = join(dir, "..", "stop-writer");
      const writer = execa(process.execPath, ["-e", WRITER, join(dir, "agent-computer.sqlite"), stop], { reject: false });
      try {
        while ((await mesh.count("SELECT COUNT(*) AS n FROM messages WHERE sender = 'writer'")) < 20) await Bun.sleep(10);
        const files: string[] = [];
        for (let i = 0; i < 3; i++) {
          files.push(join(dir, "..", `during-${i}.sqlite`));
          await backupStore(env(), files.at(-1) as string);
        }
        writeFileSync(stop, "");
        expect((await writer).exitCode).toBe(0);
        const counts = files.map((file) => {
          const db = new Database(file, { readonly: true });
          try {
            expect(db.prepare("PRAGMA quick_check").get()).toEqual({ quick_check: "ok" });
            const rows = db.prepare("SELECT COUNT(*) AS n FROM messages WHERE sender = 'writer'").get() as { n: number };
            const pairs = db.prepare("SELECT COUNT(*) AS n FROM deliveries WHERE recipient = 'ghost'").get() as { n: number };
            expect(pairs.n).toBe(rows.n);
            return rows.n;
          } finally {
            db.close();
          }
        });
        expect(counts[0]).toBeGreaterThanOrEqual(20);
        expect(counts[2]).toBeGreaterThanOrEqual(counts[0] as number);

        const home = join(dir, "..", "restored");
        const restored = await restoreStore({ AGENT_COMPUTER_HOME: home }, files[2] as string);
        expect(restored).toMatchObject({ dialect: "sqlite", target: join(home, "agent-computer.sqlite") });
        expect(restored.migrations).toBeGreaterThan(0);
        expect(await contentOf({ AGENT_COMPUTER_HOME: home })).toEqual({ agents: "keeper", job: "nightly" });
        const db = new Database(join(home, "agent-computer.sqlite"), { readonly: true });
        expect(db.prepare("SELECT body FROM messages WHERE id = ?1").get(messageId)).toEqual({ body: "survives the round trip" });
        expect((db.prepare("SELECT COUNT(*) AS n FROM messages WHERE sender = 'writer'").get() as { n: number }).n).toBe(
          counts[2],
        );
        db.close();
        expect(statSync(join(home, "agent-computer.sqlite")).mode & 0o777).toBe(0o600);
        expect(statSync(home).mode & 0o777).toBe(0o700);
      } finally {
        writeFileSync(stop, "");
        await writer;
      }
    });

    test("restore refuses a state directory that is not empty, or a file that is no backup, and changes nothing", async () => {
      const backup = join(dir, "..", "fresh-sqlite.bak");
      const busy = join(dir, "..", "busy");
      mkdirSync(busy);
      writeFileSync(join(busy, "notes.txt"), "mine");
      const refused = await failure(restoreStore({ AGENT_COMPUTER_HOME: busy }, backup));
      expect(refused?.code).toBe("CONFLICT");
      expect(refused?.message).toMatch(/not empty/);
      expect(readdirSync(busy)).toEqual(["notes.txt"]);
      const nowhere = join(dir, "..", "never-made");
      expect((await failure(restoreStore({ AGENT_COMPUTER_HOME: nowhere }, join(busy, "notes.txt"))))?.code).toBe(
        "INVALID_INPUT",
      );
      expect(existsSync(nowhere)).toBe(false);
    });
  }

  if (storeName === "postgres") {
    test("pg_dump, then pg_restore into an empty database: it opens, migrates and holds what was there", async () => {
      const admin = new SQL(pgUrl as string);
      const name = `ac_t_restore_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      rememberDatabase(name, pgUrl as string);
      try {
        const url = new URL(pgUrl as string);
        url.pathname = `/${name}`;
        const target = {
          AGENT_COMPUTER_HOME: join(dir, "..", "pg-restored"),
          AGENT_COMPUTER_DATABASE_URL: url.toString(),
          PATH: process.env.PATH ?? "/usr/bin:/bin",
        };
        const file = join(dir, "..", "fresh-postgres.bak");
        const restored = await restoreStore(target, file);
        expect(restored).toMatchObject({ dialect: "postgres", migrations: expect.any(Number) });
        expect(await contentOf(target)).toEqual({ agents: "keeper", job: "nightly" });
        const db = new SQL(url.toString());
        expect([...(await db.unsafe("SELECT body FROM messages WHERE id = $1", [messageId]))]).toEqual([
          { body: "survives the round trip" },
        ]);
        await db.close();
        // Now it holds tables: a second restore is refused.
        expect((await failure(restoreStore(target, file)))?.code).toBe("CONFLICT");
        // A SQLite file is not restored into PostgreSQL.
        expect((await failure(restoreStore(target, join(dir, "..", "existing-postgres.bak"))))?.code).toBe("INVALID_INPUT");
      } finally {
        await dropDatabase(admin, name);
        forgetDatabase(name);
        await admin.close();
      }
    });
  }
});
