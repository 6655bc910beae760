// A console row that names agents stays bounded however many there are: a post to a channel of thousands has a
// delivery per member. The store reads the first OVERVIEW_NAMES names of a message's recipients or a channel's
// members (the console's human's own delivery always among them, so its Reply link stays) and counts the rest.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Store } from "../../app/agent_computer/src/store/port.ts";
import { OVERVIEW_NAMES } from "../../app/agent_computer/src/store/port-overview.ts";
import { type OwnerConsole, ownerConsole } from "../helpers/owner-console.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const HUMAN = "human-tester";
const MANY = 400;
const name = (i: number) => `agent-${String(i).padStart(4, "0")}`;
const MESSAGE = `msg_${"b".repeat(32)}`;

describe.each(storeNames)("console rows that name many agents [%s]", (storeName) => {
  let target: StoreTarget;
  let store: Store;
  let owner: OwnerConsole;
  let page: (path: string) => Promise<string>;

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    store = await target.open();
    const now = Date.now();
    const names = [...Array.from({ length: MANY }, (_, i) => name(i)), HUMAN];
    const values = (row: (n: string, i: number) => string) => names.map(row).join(", ");
    await target.sql(
      `INSERT INTO agents (name, token_hash, created_at, updated_at, last_seen_at) VALUES ${values((n) => `('${n}', 'x', ${now}, ${now}, ${now})`)}`,
    );
    await target.sql(`INSERT INTO channels (name, created_by, created_at) VALUES ('crowd', '${name(0)}', ${now})`);
    await target.sql(
      `INSERT INTO channel_members (channel, agent_name, joined_at) VALUES ${values((n) => `('crowd', '${n}', ${now})`)}`,
    );
    await target.sql(
      `INSERT INTO messages (id, sender, kind, body, created_at) VALUES ('${MESSAGE}', 'boss', 'message', 'hi', ${now})`,
    );
    await target.sql(
      `INSERT INTO deliveries (message_id, recipient, seq, state) VALUES ${values((n, i) => `('${MESSAGE}', '${n}', ${i + 1}, 'pending')`)}`,
    );
    owner = ownerConsole(store, HUMAN);
    page = async (path) => {
      const response = await owner.get(path);
      expect(response?.status).toBe(200);
      return (await response?.text()) ?? "";
    };
  }, 60_000);
  afterAll(async () => {
    owner?.close();
    await store?.close();
    await target?.dispose();
  });

  test("a message to hundreds names ten and counts the rest; the human's own delivery still offers Reply", async () => {
    for (const path of ["/messages", `/thread?id=${MESSAGE}`]) {
      const text = await page(path);
      expect(text, path).toContain(`and ${MANY + 1 - 10} more`);
      expect(text, path).toContain(`href="/compose?reply_to=${MESSAGE}"`);
      expect(text.length, path).toBeLessThan(30_000);
    }
    expect(await page(`/compose?reply_to=${MESSAGE}`)).toContain(`name="reply_to" value="${MESSAGE}"`);
    const read = await store.read((tx) => tx.overview.message(MESSAGE, HUMAN));
    expect(read?.recipients).toHaveLength(OVERVIEW_NAMES + 1);
    expect(read?.recipients.at(-1)).toEqual({ agentId: HUMAN, state: "pending" });
    expect(read?.recipientCount).toBe(MANY + 1);
  });

  test("a channel of hundreds shows its first members and counts the others", async () => {
    const channels = await page("/channels");
    expect(channels).toContain(name(OVERVIEW_NAMES - 1));
    expect(channels).not.toContain(name(OVERVIEW_NAMES));
    expect(channels).toContain(`and ${MANY + 1 - OVERVIEW_NAMES} more`);
    expect(await page("/compose")).toContain(`#crowd (${MANY + 1} members)`);
  });
});
