// Names that cannot impersonate, on every store: a name that differs from a registered one only by case or trailing
// . _ - is refused with the registered name (NAME_LOOKALIKE), by register-agent-cli and by a first check-in alike;
// look-alikes of the mesh's own sender name are refused; block lists hold for every look-alike of a blocked name.
// Migration 018 keys the names registered before it without breaking any of them.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkIn } from "../../app/agent_computer/src/domain/agents/checkin.ts";
import { registerAgent } from "../../app/agent_computer/src/domain/agents/register.ts";
import { type ContactChange, manageContacts } from "../../app/agent_computer/src/domain/mesh/contacts.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { postgresMigrations } from "../../app/agent_computer/src/store/postgres/migration-set.ts";
import type { Migration } from "../../app/agent_computer/src/store/sql/db.ts";
import { migrate } from "../../app/agent_computer/src/store/sql/migrate.ts";
import { sqliteMigrations } from "../../app/agent_computer/src/store/sqlite/migration-set.ts";
import { createDriverTarget } from "../helpers/drivers.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const NAME_KEYS = 18;

describe.each(storeNames)("names that cannot impersonate [%s]", (storeName) => {
  let mesh: MeshAgents;
  const token = (agentId: string) => mesh.token(agentId);
  const register = async (agentId: string) => {
    mesh.clock.advance(1000);
    const r = await registerAgent(mesh.deps(), { agentId, role: "builder", capabilities: [], token: undefined });
    if (r.agent_token) mesh.remember(agentId, r.agent_token);
    return r;
  };
  const contacts = (agentId: string, change: ContactChange) =>
    manageContacts(mesh.deps(), { agentId, token: token(agentId), change });
  const send = (from: string, to: string) => {
    mesh.clock.advance(1000);
    return sendMessage(mesh.deps(), { from, token: token(from), recipients: { kind: "to", agentIds: [to] }, body: "hi" });
  };

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    await mesh.join("alice");
  });
  afterAll(async () => mesh?.close());

  test("a look-alike of a registered name is refused with that name, and nothing is written", async () => {
    const agents = () => mesh.count("SELECT COUNT(*) AS n FROM agents");
    const before = await agents();
    for (const name of ["Alice", "ALICE", "alice.", "alice_", "Alice-.", "alice..."]) {
      expect(await failure(register(name)), name).toMatchObject({
        code: "NAME_LOOKALIKE",
        message: expect.stringContaining("registered name alice"),
        details: { existing_agent_id: "alice" },
      });
      expect(
        await failure(checkIn(mesh.deps(), { agentId: name, token: undefined, ttlSeconds: 3600 })),
        `first check-in of ${name}`,
      ).toMatchObject({ code: "NAME_LOOKALIKE" });
    }
    expect(await agents()).toBe(before);
    // Names that only contain the name, or differ inside it, are other names.
    expect((await register("alice2")).action).toBe("registered");
    expect((await register("a.lice")).action).toBe("registered");
  });

  // Two connections racing inside one process only make sense on PostgreSQL (see identity-store.test.ts).
  test.skipIf(storeName !== "postgres")(
    "of two look-alikes registering at once, one wins and the other is told its name",
    async () => {
      const second = await mesh.target.open();
      try {
        const deps = [mesh.deps(), { ...mesh.deps(), store: second }];
        for (let round = 0; round < 5; round++) {
          const names = [`Racer${round}`, `racer${round}.`];
          const results = await Promise.allSettled(
            names.map((agentId, i) =>
              registerAgent(deps[i] as (typeof deps)[0], { agentId, role: "builder", capabilities: [], token: undefined }),
            ),
          );
          const won = results.filter((r) => r.status === "fulfilled");
          const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason as { code: string }] : []));
          expect(won, `round ${round}`).toHaveLength(1);
          expect(lost.map((e) => e.code)).toEqual(["NAME_LOOKALIKE"]);
          expect(await mesh.count(`SELECT COUNT(*) AS n FROM agents WHERE lower(name) LIKE 'racer${round}%'`)).toBe(1);
        }
      } finally {
        await second.close();
      }
    },
  );

  test("look-alikes of the mesh's own sender name are refused", async () => {
    for (const name of ["agent-computer", "agent-computer.", "Agent-Computer", "AGENT-COMPUTER_"]) {
      expect(await failure(register(name)), name).toMatchObject({ code: "INVALID_INPUT" });
    }
  });

  test("a block holds for the blocked name's look-alikes; a look-alike typed in a list is stored as the registered name", async () => {
    await mesh.join("guard");
    await mesh.join("mallory");
    expect(await contacts("guard", { kind: "block", contacts: ["MALLORY"] })).toMatchObject({ block: ["mallory"] });
    expect(await failure(send("mallory", "guard"))).toMatchObject({ code: "REFUSED_BY_POLICY" });
    // A name blocked before anyone holds it, in another case: its holder is refused.
    await contacts("guard", { kind: "block", contacts: ["Eve."] });
    await register("eve");
    expect(await failure(send("eve", "guard"))).toMatchObject({ code: "REFUSED_BY_POLICY" });
    expect(await contacts("guard", { kind: "forget", contacts: ["Mallory"] })).toMatchObject({ block: ["Eve."] });
    expect((await send("mallory", "guard")).recipients).toEqual([
      { agent_id: "guard", outcome: "live", seq: expect.any(Number) },
    ]);
    expect(await failure(contacts("guard", { kind: "block", contacts: ["GUARD"] }))).toMatchObject({ code: "INVALID_INPUT" });
  });
});

describe.each(storeNames)("name keys across migration 018 [%s]", (storeName) => {
  test("of names registered before that look alike, the earliest holds the key, the later ones none; a name revoked before starts after its revocation", async () => {
    const target = await createDriverTarget(storeName);
    try {
      const driver = await target.open();
      const set: readonly Migration[] = storeName === "sqlite" ? sqliteMigrations : postgresMigrations;
      await migrate(
        driver,
        set.filter((m) => m.version < NAME_KEYS),
      );
      for (const [name, createdAt, state] of [
        ["Bob", 2, "active"],
        ["bob", 1, "active"],
        ["bob.", 3, "revoked"],
        ["carol", 5, "active"],
      ] as const) {
        await driver.run(
          `INSERT INTO agents (name, token_hash, auth_state, created_at, updated_at, last_seen_at)
           VALUES ($1, 'h', $2, $3, $3 + 10, $3)`,
          [name, state, createdAt],
        );
      }
      await migrate(driver, set);
      const rows = await driver.all<{ name: string; name_key: string | null; holder_since: number | string }>(
        "SELECT name, name_key, holder_since FROM agents ORDER BY name",
      );
      expect(rows.map((r) => [r.name, r.name_key, Number(r.holder_since)])).toEqual([
        ["Bob", null, 2],
        ["bob", "bob", 1],
        ["bob.", null, 14],
        ["carol", "carol", 5],
      ]);
    } finally {
      await target.dispose();
    }
  });
});
