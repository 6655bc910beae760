// agent-computer-admin export against every store: an agent's own mail (what it sent, what was delivered to it),
// oldest first across pages, never another agent's, and only with the agent's own token.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { exportMail, type MailLine } from "../../app/agent_computer/src/domain/admin/export-mail.ts";
import { ackMessages } from "../../app/agent_computer/src/domain/mesh/ack.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("export an agent's own mail [%s]", (storeName) => {
  let mesh: MeshAgents;
  const ids: string[] = [];

  const send = async (from: string, to: string[], body: string): Promise<string> => {
    const id = (await sendMessage(mesh.deps(), { from, token: mesh.token(from), recipients: { kind: "to", agentIds: to }, body }))
      .id;
    mesh.clock.advance(1000);
    return id;
  };

  const exported = async (agentId: string, token: string | undefined, page = 2): Promise<MailLine[]> => {
    const lines: MailLine[] = [];
    await exportMail(mesh.deps(), { agentId, token, page }, async (batch) => {
      lines.push(...batch);
    });
    return lines;
  };

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["owner", "peer", "third"]) await mesh.join(agent);
    ids.push(await send("peer", ["owner"], "to the owner"));
    ids.push(await send("owner", ["peer", "third"], "from the owner"));
    await send("peer", ["third"], "not the owner's business");
    ids.push(await send("third", ["owner", "peer"], "to several"));
    ids.push(await send("owner", ["owner"], "a note to self"));
    await ackMessages(mesh.deps(), { agentId: "owner", token: mesh.token("owner"), messageIds: [ids[0] as string] });
  });
  afterAll(async () => {
    await mesh?.close();
  });

  test("every message it sent or received, oldest first across pages, with directions and states", async () => {
    const lines = await exported("owner", mesh.token("owner"));
    expect(lines.map((l) => l.id)).toEqual(ids);
    expect(lines.map((l) => l.direction)).toEqual(["received", "sent", "received", "sent_to_self"]);
    expect(lines[0]).toMatchObject({ from: "peer", body: "to the owner", state: "acked" });
    expect(lines[0]?.acked_at).toEqual(expect.any(String));
    expect(lines[1]?.to).toEqual([
      { agent_id: "peer", state: "pending" },
      { agent_id: "third", state: "pending" },
    ]);
    expect(lines[2]).toMatchObject({ from: "third", state: "pending" });
    expect(lines[2]?.to).toBeUndefined();
    expect(lines.some((l) => l.body.includes("business"))).toBe(false);
    // One page or many: the same lines.
    expect(await exported("owner", mesh.token("owner"), 500)).toEqual(lines);
  });

  test("another agent's token, or none, exports nothing", async () => {
    expect((await failure(exported("owner", mesh.token("peer"))))?.code).toBe("AUTH_FAILED");
    expect((await failure(exported("owner", undefined)))?.code).toBe("AUTH_FAILED");
  });
});
