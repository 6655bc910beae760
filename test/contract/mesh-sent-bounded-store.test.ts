// The sender's list names a message's first recipients and counts them all by state: the store reads a bounded few
// deliveries per message (and a count), not one row per recipient of a broadcast to thousands.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { listSent, RECIPIENTS_SHOWN } from "../../app/agent_computer/src/domain/mesh/sent.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const MANY = 400;
const STATES = ["pending", "acked", "expired_undelivered", "not_checked_in"] as const;
const name = (i: number) => `crowd-${String(i).padStart(4, "0")}`;

describe.each(storeNames)("sent messages to many recipients [%s]", (storeName) => {
  let mesh: MeshAgents;
  let wide: string;
  let narrow: string;

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["boss", "solo"]) await mesh.join(agent);
    const send = (body: string) =>
      sendMessage(mesh.deps(), { from: "boss", token: mesh.token("boss"), recipients: { kind: "to", agentIds: ["solo"] }, body });
    wide = (await send("to everyone")).id;
    mesh.clock.advance(1000);
    narrow = (await send("to one")).id;
    // The wide message also went to MANY others, in every state, inserted in reverse name order.
    const rows = Array.from({ length: MANY }, (_, i) => MANY - 1 - i).map(
      (i) => `('${wide}', '${name(i)}', ${i + 1}, '${STATES[i % STATES.length]}')`,
    );
    await mesh.target.sql(`INSERT INTO deliveries (message_id, recipient, seq, state) VALUES ${rows.join(", ")}`);
  });
  afterAll(async () => mesh?.close());

  test("the store returns the first few deliveries of each message by recipient, and all of them counted by state", async () => {
    const sent = await mesh.store.read((tx) => tx.mesh.sent("boss", 10, undefined, RECIPIENTS_SHOWN));
    const byId = new Map(sent.map((m) => [m.id, m]));
    const many = byId.get(wide);
    expect(many?.recipients.map((d) => d.recipient)).toEqual(Array.from({ length: RECIPIENTS_SHOWN }, (_, i) => name(i)));
    expect(many?.recipients[1]).toMatchObject({ messageId: wide, seq: 2, state: "acked" });
    expect(many?.recipientCounts).toEqual({
      pending: MANY / 4 + 1,
      acked: MANY / 4,
      expired_undelivered: MANY / 4,
      not_checked_in: MANY / 4,
    });
    expect(byId.get(narrow)?.recipients.map((d) => d.recipient)).toEqual(["solo"]);
    expect(byId.get(narrow)?.recipientCounts).toEqual({ pending: 1, acked: 0, expired_undelivered: 0, not_checked_in: 0 });
  });

  test("agent-sent-cli's result is unchanged: the first 10 names and every recipient counted", async () => {
    const r = await listSent(mesh.deps(), { agentId: "boss", token: mesh.token("boss"), limit: 20 });
    const many = r.messages.find((m) => m.id === wide);
    expect(many?.recipients).toHaveLength(RECIPIENTS_SHOWN);
    expect(many?.recipients[0]).toEqual({ agent_id: name(0), state: "pending", seq: 1, acked_at: null, closed_at: null });
    expect(Object.values(many?.recipient_counts ?? {}).reduce((a, b) => a + b, 0)).toBe(MANY + 1);
  });
});
