// Search pages on every store: a keyset on the hits' total order (score, newest, id), so paging through equal scores
// neither repeats nor skips a hit, each page counts the hits below it, and a long body shows as an excerpt around
// its first match.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as z from "zod/mini";
import searchCommand from "../../app/agent_computer/src/cli/mesh/agent-search-cli.ts";
import { searchMessages } from "../../app/agent_computer/src/domain/mesh/search.ts";
import { EXCERPT_CHARS } from "../../app/agent_computer/src/domain/mesh/search-excerpt.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import type { SearchPosition } from "../../app/agent_computer/src/store/port.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("search pages [%s]", (storeName) => {
  let mesh: MeshAgents;
  const send = async (body: string, sameTime = false) => {
    if (!sameTime) mesh.clock.advance(1000);
    const deps = mesh.deps();
    return sendMessage(deps, {
      from: "writer",
      token: mesh.token("writer"),
      recipients: { kind: "to", agentIds: ["reader"] },
      body,
    });
  };
  const search = (query: string, limit: number, after?: SearchPosition) =>
    searchMessages(mesh.deps(), { agentId: "reader", token: mesh.token("reader"), query, limit, after });

  /** agent-search-cli's own run(), its flags parsed by its schema, over the real store. */
  const runCli = async (flags: Record<string, unknown>) =>
    (await searchCommand.run(z.parse(searchCommand.schema as z.ZodMiniType, { agentId: "reader", ...flags }), {
      ...mesh.deps(),
      ctx: undefined,
      credential: { token: mesh.token("reader") },
    } as never)) as { messages: { id: string }[]; next_cursor: string | null; not_shown: number };

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["reader", "writer"]) await mesh.join(agent);
    // Twelve equal scores, four of them sent in the same millisecond: only the id orders those.
    for (let i = 0; i < 12; i++) await send("tie rollback", i % 3 !== 0);
    for (let i = 0; i < 3; i++) await send("rollback rollback rollback strong");
  });
  afterAll(async () => mesh?.close());

  test("pages of 4 visit every hit once, in the order of one big page, and count what is below", async () => {
    const all = await search("rollback", 200);
    expect(all.count).toBe(15);
    expect(all.more_hits).toBe(0);
    const seen: string[] = [];
    let after: SearchPosition | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await search("rollback", 4, after);
      seen.push(...r.messages.map((m) => m.id));
      expect(r.more_hits).toBe(15 - seen.length);
      const last = r.messages.at(-1);
      if (r.more_hits === 0 || !last) break;
      after = { score: last.score, createdAt: Date.parse(last.created_at), id: last.id };
    }
    expect(seen).toEqual(all.messages.map((m) => m.id));
  });

  test("agent-search-cli: its next_cursor continues the order; a cursor of another query is refused naming --cursor", async () => {
    const all = (await search("rollback", 200)).messages.map((m) => m.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await runCli({ query: "rollback", limit: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...r.messages.map((m) => m.id));
      expect(r.not_shown).toBe(all.length - seen.length);
      if (r.next_cursor === null) break;
      cursor = r.next_cursor;
    }
    expect(seen).toEqual(all);
    const first = await runCli({ query: "rollback", limit: 2 });
    await expect(runCli({ query: "tie", limit: 2, cursor: first.next_cursor })).rejects.toThrow(/--cursor/);
  });

  test("a long body shows as an excerpt around its first match, with the whole length", async () => {
    const body = `${"lorem ipsum ".repeat(2000)}the needle sits here ${"dolor sit ".repeat(2000)}`;
    await send(body);
    const [hit] = (await search("needle", 5)).messages;
    expect(hit?.body_chars).toBe(body.length);
    expect(hit?.excerpt).toMatch(/^….*needle sits here.*…$/s);
    expect(hit?.excerpt.length).toBeLessThanOrEqual(EXCERPT_CHARS + 2);
    expect(hit?.excerpt.includes("lorem") && hit.excerpt.includes("dolor")).toBe(true);
  });
});
