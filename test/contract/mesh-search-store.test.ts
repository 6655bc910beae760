// Full-text search against every store: each store finds exactly the messages a plain oracle finds (every query word
// among the body's words: lowercase runs of letters and digits), among the caller's own messages only, so SQLite's
// FTS5 and PostgreSQL's full-text index match the same set for the same data. Each store has two plans (walk the word
// index, or walk the caller's messages) chosen by cost; every query is also run under each plan by force, and both
// must return the same hits in the same order with the same scores.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { searchMessages, searchWords } from "../../app/agent_computer/src/domain/mesh/search.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import type { SearchPlan } from "../../app/agent_computer/src/store/port.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

/** Bodies chosen for the edges of tokenising: punctuation, case, digits, addresses, paths, accents, other scripts. */
const BODIES = [
  "The migration rollback of PR-12 failed",
  "rollback done; mail me at ops@example.com",
  "see https://ci.example.org/build/4711?x=1#frag",
  "foo-bar and foo_bar and FooBar",
  "version 3.14.159 released, 2nd try",
  "Café au lait, cafe noir, CAFÉ crème",
  "日本語 テキスト と English words",
  "Ünïcödé ümlauts: Über über",
  "tabs\tand\nnew lines\r\nand  spaces",
  "numbers 007 and 7 and 0x1F and 1e10",
  "path /usr/local/bin/agent-send-cli --body x",
  "emoji 🚀 launch and ✅ done",
];

const QUERIES = [
  "rollback",
  "ROLLBACK pr 12",
  "pr-12",
  "example",
  "example com",
  "ops",
  "4711",
  "foo",
  "foo bar",
  "foo_bar",
  "foobar",
  "3 14",
  "159",
  "2nd",
  "café",
  "cafe",
  "crème",
  "日本語",
  "english",
  "über",
  "lines",
  "007",
  "7",
  "0x1f",
  "1e10",
  "usr local bin",
  "agent send cli",
  "launch",
  "nothing-matches-this",
  // Words common across the store (the bystander's copies and the filler below hold them) with few of the caller's.
  "and",
  "and done",
  "filler",
  "filler rollback",
  "common rare",
  "tie",
];

/** Mail between others only: makes "and", "filler" and "common" frequent store-wide, so auto picks the caller plan. */
const FILLER = 40;

describe.each(storeNames)("full-text search [%s]", (storeName) => {
  let mesh: MeshAgents;
  const deps = (): Deps => mesh.deps();
  /** Message id → body, for the messages "reader" may see. */
  const visible = new Map<string, string>();

  const send = async (from: string, to: string, body: string) => {
    mesh.clock.advance(1000);
    return sendMessage(deps(), { from, token: mesh.token(from), recipients: { kind: "to", agentIds: [to] }, body });
  };
  const search = (agentId: string, query: string, limit = 200) =>
    searchMessages(deps(), { agentId, token: mesh.token(agentId), query, limit });
  const planned = (agentId: string, query: string, plan: SearchPlan, limit = 200) =>
    mesh.store.read((tx) => tx.mesh.search(agentId, searchWords(query), limit, plan));

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["reader", "writer", "bystander"]) await mesh.join(agent);
    for (const [i, body] of BODIES.entries()) {
      // Half received by reader, half sent by it; a copy of each goes between two others, never reader's.
      const sent = i % 2 === 0 ? await send("writer", "reader", body) : await send("reader", "writer", body);
      visible.set(sent.id, body);
      await send("writer", "bystander", body);
    }
    for (let i = 0; i < FILLER; i++) await send("writer", "bystander", `filler and common words ${i} tie`);
    // Ties in rank: the same body twice to the caller, ordered by time then id whichever plan runs.
    for (const body of ["tie and rare common", "tie and rare common", "filler done"]) {
      const sent = await send("writer", "reader", body);
      visible.set(sent.id, body);
    }
  });
  afterAll(async () => mesh?.close());

  test.each(QUERIES)("%s: exactly the caller's messages that hold every word", async (query) => {
    const words = searchWords(query);
    const expected = [...visible].filter(([, body]) => words.every((w) => searchWords(body).includes(w))).map(([id]) => id);
    const found = await search("reader", query);
    expect(found.words).toEqual(words);
    expect(found.messages.map((m) => m.id).sort()).toEqual(expected.sort());
  });

  test.each(QUERIES)("%s: the words plan and the caller plan return the same hits, order and scores", async (query) => {
    for (const limit of [200, 2]) {
      const auto = await planned("reader", query, "auto", limit);
      expect(await planned("reader", query, "words", limit)).toEqual(auto);
      expect(await planned("reader", query, "caller", limit)).toEqual(auto);
    }
  });

  test("the oracle is not vacuous: most queries match something", async () => {
    let matched = 0;
    for (const query of QUERIES) if ((await search("reader", query)).count > 0) matched++;
    expect(matched).toBeGreaterThanOrEqual(QUERIES.length - 3);
  });

  test("mail never delivered to the caller is not searched; a message with more of the words ranks first", async () => {
    expect((await search("bystander", "rollback")).count).toBe(2);
    const strong = await send("writer", "reader", "rollback rollback rollback now");
    visible.set(strong.id, "rollback rollback rollback now");
    const ranked = await search("reader", "rollback");
    expect(ranked.messages[0]?.excerpt).toBe("rollback rollback rollback now");
    expect((await search("reader", "rollback", 1)).count).toBe(1);
  });

  test("search syntax in a query is only separators: quotes, operators and wildcards match nothing special", async () => {
    for (const query of ['"rollback" OR "café"', "rollback*", "NEAR(rollback failed)", "rollback & !failed", "rollback:*"]) {
      const found = await search("reader", query);
      const words = searchWords(query);
      const expected = [...visible].filter(([, b]) => words.every((w) => searchWords(b).includes(w))).length;
      expect(found.count, query).toBe(expected);
    }
  });
});
