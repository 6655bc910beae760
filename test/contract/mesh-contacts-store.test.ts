// Contact policy against every store: open (default), contacts-only with an allow list, closed, and a block list
// that wins under every policy. A refused recipient gets refused_by_policy and nothing stored; when every recipient
// refuses, nothing of the send is stored; broadcasts respect it; the mesh's own notices still arrive.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { unregisterAgent } from "../../app/agent_computer/src/domain/agents/unregister.ts";
import type { Deps } from "../../app/agent_computer/src/domain/deps.ts";
import { type ContactChange, manageContacts } from "../../app/agent_computer/src/domain/mesh/contacts.ts";
import { type RecipientSelector, sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("contact policy [%s]", (storeName) => {
  let mesh: MeshAgents;
  const deps = (): Deps => mesh.deps();

  const send = (from: string, recipients: RecipientSelector, body = "hi") => {
    mesh.clock.advance(1000);
    return sendMessage(deps(), { from, token: mesh.token(from), recipients, body });
  };
  const to = (...agentIds: string[]): RecipientSelector => ({ kind: "to", agentIds });
  const contacts = (agentId: string, change?: ContactChange) =>
    manageContacts(deps(), { agentId, token: mesh.token(agentId), ...(change ? { change } : {}) });
  const outcomes = async (from: string, recipients: RecipientSelector) =>
    Object.fromEntries((await send(from, recipients)).recipients.map((r) => [r.agent_id, r.outcome]));
  const count = (sql: string) => mesh.count(sql);

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["owner", "friend", "stranger", "other"]) await mesh.join(agent);
  });
  afterAll(async () => mesh?.close());

  test("every agent is open by default", async () => {
    expect(await contacts("owner")).toMatchObject({ policy: "open", allow: [], block: [], updated_at: null });
    expect(await outcomes("stranger", to("owner"))).toEqual({ owner: "live" });
  });

  test("contacts-only lets through the allow list only; the others are told and nothing is stored for them", async () => {
    await contacts("owner", { kind: "policy", policy: "contacts-only" });
    const shown = await contacts("owner", { kind: "allow", contacts: ["friend", "not-yet-registered"] });
    expect(shown).toMatchObject({ policy: "contacts-only", allow: ["friend", "not-yet-registered"], block: [] });
    expect(await outcomes("friend", to("owner"))).toEqual({ owner: "live" });
    const mixed = await send("stranger", to("owner", "other"));
    expect(mixed.recipients).toEqual([
      { agent_id: "other", outcome: "live", seq: expect.any(Number) },
      { agent_id: "owner", outcome: "refused_by_policy", seq: null },
    ]);
    expect(await mesh.target.sql("SELECT recipient FROM deliveries WHERE message_id = $1", [mixed.id])).toEqual([
      { recipient: "other" },
    ]);
  });

  test("when every recipient refuses, the send fails REFUSED_BY_POLICY and stores nothing at all", async () => {
    const before = await count("SELECT COUNT(*) AS n FROM messages");
    expect(await failure(send("stranger", to("owner")))).toMatchObject({ code: "REFUSED_BY_POLICY" });
    expect(await count("SELECT COUNT(*) AS n FROM messages")).toBe(before);
  });

  test("a block wins under every policy and moves the name off the allow list; forget takes it off both", async () => {
    const blocked = await contacts("owner", { kind: "block", contacts: ["friend"] });
    expect(blocked).toMatchObject({ allow: ["not-yet-registered"], block: ["friend"] });
    expect(await failure(send("friend", to("owner")))).toMatchObject({ code: "REFUSED_BY_POLICY" });
    await contacts("owner", { kind: "policy", policy: "open" });
    expect(await failure(send("friend", to("owner")))).toMatchObject({ code: "REFUSED_BY_POLICY" });
    expect(await outcomes("stranger", to("owner"))).toEqual({ owner: "live" });
    expect(await contacts("owner", { kind: "forget", contacts: ["friend"] })).toMatchObject({ block: [] });
    expect(await outcomes("friend", to("owner"))).toEqual({ owner: "live" });
  });

  test("closed refuses everyone, broadcasts included, while the mesh's own bounce notices still arrive", async () => {
    await contacts("owner", { kind: "policy", policy: "closed" });
    const broadcast = await send("stranger", { kind: "broadcast" });
    expect(broadcast.recipients.find((r) => r.agent_id === "owner")).toEqual({
      agent_id: "owner",
      outcome: "refused_by_policy",
      seq: null,
    });
    expect(broadcast.recipients.find((r) => r.agent_id === "friend")?.outcome).toBe("live");
    // owner's own mail to a session that then expires unread comes back as a bounce from agent-computer.
    await mesh.join("leaver");
    await send("owner", to("leaver"), "unread");
    const bounceCount = () =>
      count(
        "SELECT COUNT(*) AS n FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.recipient = 'owner' AND m.kind = 'bounce'",
      );
    const before = await bounceCount();
    mesh.clock.advance(2 * 3600 * 1000);
    await mesh.join("owner");
    expect(await bounceCount()).toBe(before + 1);
    await contacts("owner", { kind: "policy", policy: "open" });
  });

  test("an agent cannot list itself; the lists go with an unregistered name", async () => {
    expect(await failure(contacts("owner", { kind: "allow", contacts: ["owner"] }))).toMatchObject({ code: "INVALID_INPUT" });
    await mesh.join("temp");
    await contacts("temp", { kind: "block", contacts: ["stranger"] });
    await unregisterAgent(deps(), { agentId: "temp", token: mesh.token("temp") });
    expect(await count("SELECT COUNT(*) AS n FROM contacts WHERE owner = 'temp'")).toBe(0);
    expect(await count("SELECT COUNT(*) AS n FROM contact_policies WHERE agent_name = 'temp'")).toBe(0);
  });
});
