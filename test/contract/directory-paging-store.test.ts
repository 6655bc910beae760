// agents-list-cli's filters and paging on every store: each filter is applied by the store, the totals count what the
// filters match by liveness, and walking the pages by cursor yields every agent once even while agents check in (and
// new ones join) between two pages. Runs the command's own run() in process over a real store.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as z from "zod/mini";
import agentsList, {
  type AgentsListOutput,
  agentsListOptionsSchema,
} from "../../app/agent_computer/src/cli/mesh/agents-list-cli.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

type ListPage = Extract<AgentsListOutput, { view: "list" }>;
type TopologyPage = Extract<AgentsListOutput, { view: "topology" }>;

const ROLES = ["builder", "reviewer", "release"];

describe.each(storeNames)("agents-list-cli directory [%s]", (storeName) => {
  let mesh: MeshAgents;
  const names = Array.from({ length: 24 }, (_, i) => `agent-${String(i).padStart(2, "0")}`);

  const run = async (flags: Record<string, unknown>) =>
    (await agentsList.run(z.parse(agentsListOptionsSchema, flags), {
      ...mesh.deps(),
      ctx: undefined,
      credential: undefined,
    } as never)) as AgentsListOutput;
  const list = async (flags: Record<string, unknown>) => (await run(flags)) as ListPage;
  const ids = (page: ListPage) => page.agents.map((a) => a.agent_id);

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const [i, name] of names.entries()) {
      await mesh.join(name, {
        ttlSeconds: 3600,
        role: ROLES[i % 3],
        repo: i < 12 ? "acme/api" : "acme/web",
        caps: i % 4 === 0 ? ["ts", "sql"] : ["ts"],
      });
    }
    await mesh.target.sql("UPDATE sessions SET host = 'host-b' WHERE agent_name IN ('agent-01', 'agent-02', 'agent-03')");
    await mesh.target.sql("UPDATE agents SET description = 'Owns the BILLING pipeline' WHERE name = 'agent-05'");
    // Three agents went stale: their sessions ran out an hour ago.
    await mesh.target.sql("UPDATE sessions SET expires_at = $1 WHERE agent_name IN ('agent-21', 'agent-22', 'agent-23')", [
      mesh.clock.now - 3_600_000,
    ]);
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("each filter is applied, and the totals count the matches by liveness", async () => {
    const all = await list({});
    expect(all.totals).toEqual({ live: 21, stale: 3 });
    expect(ids(all)).toEqual(names.slice(0, 21));
    expect(all.next_cursor).toBeNull();
    expect(ids(await list({ role: "reviewer" }))).toEqual([
      "agent-01",
      "agent-04",
      "agent-07",
      "agent-10",
      "agent-13",
      "agent-16",
      "agent-19",
    ]);
    expect(ids(await list({ repo: "acme/web", status: "stale" }))).toEqual(["agent-21", "agent-22", "agent-23"]);
    expect(ids(await list({ capabilities: ["sql", "ts"] }))).toEqual([
      "agent-00",
      "agent-04",
      "agent-08",
      "agent-12",
      "agent-16",
      "agent-20",
    ]);
    expect(ids(await list({ host: "host-b" }))).toEqual(["agent-01", "agent-02", "agent-03"]);
    expect(ids(await list({ namePrefix: "agent-1" }))).toEqual(names.slice(10, 20));
    expect(ids(await list({ query: "billing" }))).toEqual(["agent-05"]);
    expect(ids(await list({ query: "T-2" }))).toEqual(["agent-20"]);
    // LIKE's own characters are taken literally.
    expect(ids(await list({ query: "agent_0" }))).toEqual([]);
    const both = await list({ status: "all", role: "release", repo: "acme/web" });
    expect(both.totals).toEqual({ live: 3, stale: 1 });
    expect(ids(both)).toEqual(["agent-14", "agent-17", "agent-20", "agent-23"]);
    expect(both.agents.at(-1)?.alive).toBe(false);
  });

  test("pages by name: every agent exactly once while others check in and join between pages", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list({ status: "all", limit: 5, ...(cursor ? { cursor } : {}) });
      seen.push(...ids(page));
      pages++;
      if (page.next_cursor !== null) expect(page.not_shown).toBe(24 - seen.length);
      cursor = page.next_cursor ?? undefined;
      // Between pages: agents already shown and not yet shown renew their sessions, and a newcomer joins.
      mesh.clock.advance(2_000);
      await mesh.join(names[(pages * 7) % 21] as string, { ttlSeconds: 3600, status: `busy ${pages}` });
      await mesh.join(names[(pages * 5 + 3) % 21] as string, { ttlSeconds: 3600 });
      // It sorts before every later cursor, so no later page shows or counts it.
      if (pages === 2) await mesh.join("aaa-newcomer", { ttlSeconds: 3600 });
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual(names);
  });

  test("a cursor for other filters, from another command or garbled is INVALID_INPUT naming --cursor", async () => {
    const first = await list({ role: "builder", limit: 2 });
    expect(first.next_cursor).toEqual(expect.any(String));
    const cursor = first.next_cursor as string;
    await expect(list({ role: "reviewer", limit: 2, cursor })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(/^--cursor: /),
    });
    await expect(list({ limit: 2, cursor: "eyJ4IjoxfQ" })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(/^--cursor: /),
    });
    const second = await list({ role: "builder", limit: 2, cursor });
    expect(ids(second)).toEqual(["agent-06", "agent-09"]);
  });

  test("topology counts live agents per class and per host, not each agent", async () => {
    // Checking in again (the paging test) sets the host again.
    await mesh.target.sql("UPDATE sessions SET host = 'host-b' WHERE agent_name IN ('agent-01', 'agent-02', 'agent-03')");
    const topology = (await run({ view: "topology" })) as TopologyPage;
    expect(topology.live).toBe(22);
    expect(topology.classes).toEqual([{ class: "unclassified", count: 22 }]);
    expect(topology.hosts).toEqual([
      { host: "test-host", count: 19 },
      { host: "host-b", count: 3 },
    ]);
    expect(JSON.stringify(topology)).not.toContain("agent-0");
  });
});
