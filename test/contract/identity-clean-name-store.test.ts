// A revoked name starts clean, on every store: whoever registers a name revoked without recovery gets none of the
// earlier holder's mail, threads, sent view, search hits, retry keys, channels, webhooks or contact lists; a name
// recovered with its recovery token keeps them.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { registerAgent } from "../../app/agent_computer/src/domain/agents/register.ts";
import { revokeToken } from "../../app/agent_computer/src/domain/agents/revoke.ts";
import { channelAction } from "../../app/agent_computer/src/domain/mesh/channels.ts";
import { manageContacts } from "../../app/agent_computer/src/domain/mesh/contacts.ts";
import { searchMessages } from "../../app/agent_computer/src/domain/mesh/search.ts";
import { sendMessage } from "../../app/agent_computer/src/domain/mesh/send.ts";
import { listSent } from "../../app/agent_computer/src/domain/mesh/sent.ts";
import { readThread } from "../../app/agent_computer/src/domain/mesh/thread.ts";
import { addEndpoint, listEndpoints } from "../../app/agent_computer/src/domain/outbound-webhooks/endpoints.ts";
import { listTasks } from "../../app/agent_computer/src/domain/tasks/list.ts";
import { failure, type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("a revoked name starts clean [%s]", (storeName) => {
  let mesh: MeshAgents;
  const token = (agentId: string) => mesh.token(agentId);
  const deps = () => mesh.deps();

  const send = (from: string, to: string, body: string, extra: { threadId?: string; idempotencyKey?: string } = {}) => {
    mesh.clock.advance(1000);
    return sendMessage(deps(), { from, token: token(from), recipients: { kind: "to", agentIds: [to] }, body, ...extra });
  };

  /** The holder's whole history: mail both ways in a thread, a retry key, a channel, a webhook and a block. */
  const buildHistory = async (holder: string) => {
    const received = await send("peer", holder, `orders for ${holder} zanzibar`, { threadId: "plan" });
    const sent = await send(holder, "peer", `report from ${holder} zanzibar`, { idempotencyKey: "k1" });
    await channelAction(deps(), { agentId: holder, token: token(holder), action: { kind: "create", channel: `${holder}-room` } });
    await channelAction(deps(), { agentId: "peer", token: token("peer"), action: { kind: "join", channel: `${holder}-room` } });
    await addEndpoint(deps(), {
      agentId: holder,
      token: token(holder),
      url: "https://hooks.example.com/old-holder",
      events: ["message"],
      allowPrivate: false,
    });
    await manageContacts(deps(), { agentId: holder, token: token(holder), change: { kind: "block", contacts: ["peer"] } });
    return { received, sent };
  };

  const registerAs = async (agentId: string, recoveryToken?: string) => {
    mesh.clock.advance(1000);
    const r = await registerAgent(deps(), { agentId, role: "builder", capabilities: [], token: undefined, recoveryToken });
    if (r.agent_token) mesh.remember(agentId, r.agent_token);
    return r;
  };

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    for (const agent of ["peer", "released", "recovered"]) await mesh.join(agent);
  });
  afterAll(async () => mesh?.close());

  test("without a recovery token the next holder gets none of the earlier holder's history", async () => {
    const { received, sent } = await buildHistory("released");
    await mesh.target.sql(
      `INSERT INTO tasks (id, title, body, required_caps, priority, priority_rank, state, poster, assignee, version, created_at, updated_at)
       VALUES ('tsk_released', 'private task', 'b', '["nobody-has-it"]', 'normal', 1, 'assigned', 'peer', 'released', 1, $1, $1),
              ('tsk_posted', 'its own task', 'b', '["nobody-has-it"]', 'normal', 1, 'assigned', 'released', 'peer', 1, $1, $1)`,
      [mesh.clock.now],
    );
    await mesh.target.sql(
      `INSERT INTO automation_jobs (id, owner, label, dir, timeout_seconds, created_at) VALUES ('job_released', 'released', 'l', '/x', 60, 1)`,
    );
    await mesh.target.sql(
      `INSERT INTO automation_triggers (id, kind, owner, job_id, provider, secret, created_at)
       VALUES ('trg_released', 'webhook', 'released', 'job_released', 'generic', 'whsec_old', 1)`,
    );
    await mesh.target.sql(
      "INSERT INTO automation_worker_env (owner, key, value, updated_at) VALUES ('released', 'API_KEY', 'old-secret', 1)",
    );
    mesh.clock.advance(1000);
    await revokeToken(deps(), { agentId: "released", token: token("released"), issueRecovery: false });
    const next = await registerAs("released");
    expect(next.agent_token).toBeDefined();
    const me = { agentId: "released", token: token("released") };

    expect((await listSent(deps(), { ...me, limit: 100 })).messages).toEqual([]);
    for (const id of [received.id, sent.id, "plan"]) {
      expect(await failure(readThread(deps(), { ...me, thread: id, limit: 50 }))).toMatchObject({ code: "NOT_FOUND" });
    }
    expect((await searchMessages(deps(), { ...me, query: "zanzibar", limit: 50 })).messages).toEqual([]);
    const peerHits = await searchMessages(deps(), {
      agentId: "peer",
      token: token("peer"),
      query: "zanzibar released",
      limit: 50,
    });
    expect(peerHits.messages.map((m) => m.id).sort()).toEqual([received.id, sent.id].sort());
    expect((await channelAction(deps(), { ...me, action: { kind: "list", all: false } })).channels).toEqual([]);
    expect((await listEndpoints(deps(), me)).endpoints).toEqual([]);
    expect(await manageContacts(deps(), me)).toMatchObject({ policy: "open", allow: [], block: [] });
    // The earlier holder's retry key would have replayed its message; the new holder's first use sends anew.
    const retried = await send("released", "peer", "a new message", { idempotencyKey: "k1" });
    expect(retried).not.toMatchObject({ replayed: true });
    expect(retried.id).not.toBe(sent.id);
    expect((await listSent(deps(), { ...me, limit: 100 })).messages.map((m) => m.id)).toEqual([retried.id]);

    // The other side keeps its copies: the peer still reads the thread it had with the earlier holder.
    const peerThread = await readThread(deps(), { agentId: "peer", token: token("peer"), thread: sent.id, limit: 50 });
    expect(peerThread.messages.map((m) => m.id)).toEqual([sent.id]);
    expect(await mesh.count("SELECT COUNT(*) AS n FROM webhook_endpoints WHERE owner = 'released'")).toBe(0);
    // A task the earlier holder had went back to routing (no one else can do it: the queue), not to the next holder.
    expect(await mesh.target.sql("SELECT state, assignee FROM tasks WHERE id = 'tsk_released'")).toEqual([
      { state: "queued", assignee: null },
    ]);
    // A task it posted is cancelled (its result would reach the next holder); the next holder's list shows neither.
    expect(await mesh.target.sql("SELECT state FROM tasks WHERE id = 'tsk_posted'")).toEqual([{ state: "cancelled" }]);
    expect((await listTasks(deps(), { ...me, scope: "mine", states: [], limit: 50 })).tasks).toEqual([]);
    // Its automation is cancelled and its worker env gone: nothing of it runs or is read for the next holder.
    expect(await mesh.target.sql("SELECT state FROM automation_jobs WHERE id = 'job_released'")).toEqual([
      { state: "cancelled" },
    ]);
    expect(await mesh.target.sql("SELECT state FROM automation_triggers WHERE id = 'trg_released'")).toEqual([
      { state: "cancelled" },
    ]);
    expect(await mesh.count("SELECT COUNT(*) AS n FROM automation_worker_env WHERE owner = 'released'")).toBe(0);
  });

  test("with the recovery token the name keeps its history", async () => {
    const { sent } = await buildHistory("recovered");
    mesh.clock.advance(1000);
    const revoked = await revokeToken(deps(), { agentId: "recovered", token: token("recovered"), issueRecovery: true });
    const back = await registerAs("recovered", revoked.recovery_token);
    expect(back.recovery_completed).toBe(true);
    const me = { agentId: "recovered", token: token("recovered") };
    expect((await listSent(deps(), { ...me, limit: 100 })).messages.map((m) => m.id)).toEqual([sent.id]);
    expect((await listEndpoints(deps(), me)).endpoints).toHaveLength(1);
    expect((await channelAction(deps(), { ...me, action: { kind: "list", all: false } })).channels?.map((c) => c.name)).toEqual([
      "recovered-room",
    ]);
    expect((await manageContacts(deps(), me)).block).toEqual(["peer"]);
  });

  test("a name revoked before revocation ended history still starts clean when registered again", async () => {
    await mesh.join("legacy");
    const { sent } = await buildHistory("legacy");
    mesh.clock.advance(1000);
    // What an older version left behind: the revoked row with its history in place.
    await mesh.target.sql("UPDATE agents SET auth_state = 'revoked', token_hash = '' WHERE name = 'legacy'");
    await mesh.target.sql("UPDATE sessions SET ended_at = $1 WHERE agent_name = 'legacy'", [mesh.clock.now]);
    await registerAs("legacy");
    const me = { agentId: "legacy", token: token("legacy") };
    expect((await listSent(deps(), { ...me, limit: 100 })).messages).toEqual([]);
    expect(await failure(readThread(deps(), { ...me, thread: sent.id, limit: 50 }))).toMatchObject({ code: "NOT_FOUND" });
    expect((await listEndpoints(deps(), me)).endpoints).toEqual([]);
    expect((await channelAction(deps(), { ...me, action: { kind: "list", all: false } })).channels).toEqual([]);
  });
});
