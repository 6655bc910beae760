// The console's agents page reads one page of agents by name, not every agent: a "next" link with an opaque cursor
// walks on, and the totals (the whole mesh's and each host's, live and stale) come from count queries.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LIMITS } from "../../app/agent_computer/src/console/console-deps.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { type OwnerConsole, ownerConsole } from "../helpers/owner-console.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const MANY = 450;
const HOSTS = ["host-a", "host-b", "host-c"];
const name = (i: number) => `agent-${String(i).padStart(4, "0")}`;
/** Agent i runs on HOSTS[i % 3]; every fifth one's session ended (stale). */
const isStale = (i: number) => i % 5 === 0;

describe.each(storeNames)("the console's agents page, a page at a time [%s]", (storeName) => {
  let target: StoreTarget;
  let store: Store;
  let owner: OwnerConsole;
  let get: (path: string) => Promise<Response | undefined>;
  const page = async (path: string) => {
    const response = await get(path);
    expect(response?.status).toBe(200);
    return (await response?.text()) ?? "";
  };

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    store = await target.open();
    const now = Date.now();
    const all = Array.from({ length: MANY }, (_, i) => i);
    await target.sql(
      `INSERT INTO agents (name, token_hash, created_at, updated_at, last_seen_at) VALUES ${all.map((i) => `('${name(i)}', 'x', ${now}, ${now}, ${now})`).join(", ")}`,
    );
    await target.sql(
      `INSERT INTO sessions (id, agent_name, host, ttl_seconds, started_at, last_activity_at, expires_at, watermark_seq, ended_at)
       VALUES ${all.map((i) => `('ses_${i}', '${name(i)}', '${HOSTS[i % 3]}', 3600, ${now - 1000}, ${now}, ${now + 3_600_000}, 0, ${isStale(i) ? now - 500 : "NULL"})`).join(", ")}`,
    );
    owner = ownerConsole(store);
    get = owner.get;
  }, 60_000);
  afterAll(async () => {
    owner?.close();
    await store?.close();
    await target?.dispose();
  });

  const shownOn = (text: string) => [...text.matchAll(/data-agent-id="([^"]+)"/g)].map((m) => m[1] as string);
  const nextOf = (text: string) => /<a rel="next" data-field="next" href="([^"]+)"/.exec(text)?.[1]?.replaceAll("&amp;", "&");

  test("pages of LIMITS.agents by name walk every agent once, each with the totals counted in SQL", async () => {
    const stale = Array.from({ length: MANY }, (_, i) => i).filter(isStale).length;
    const seen: string[] = [];
    let path: string | undefined = "/agents";
    for (let pages = 0; path !== undefined && pages < 10; pages++) {
      const text = await page(path);
      const shown = shownOn(text);
      expect(shown.length).toBeLessThanOrEqual(LIMITS.agents);
      seen.push(...shown);
      expect(text).toContain(`${MANY - stale} live, ${stale} stale in all`);
      // Each host's section counts every agent of that host, not only this page's.
      expect(text).toContain(`${MANY / 3 - stale / 3} live · ${stale / 3} stale (`);
      path = nextOf(text);
      if (path === undefined) expect(text).toContain("End of the list.");
      else expect(path).toMatch(/^\/agents\?cursor=[A-Za-z0-9_-]+$/);
    }
    // A page is the next LIMITS.agents names (shown grouped by host).
    expect(seen.slice(0, LIMITS.agents).sort()).toEqual(Array.from({ length: LIMITS.agents }, (_, i) => name(i)));
    expect([...seen].sort()).toEqual(Array.from({ length: MANY }, (_, i) => name(i)));
  });

  test("a cursor the console did not give out is refused, not read as a name", async () => {
    const response = await get("/agents?cursor=not*a*cursor");
    expect(response?.status).toBe(400);
  });
});
