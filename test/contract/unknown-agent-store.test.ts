// UNKNOWN_AGENT answers with the registered names close to the one typed (domain/identity/unknown-agent.ts), on
// every store and with 10,000 names registered: a typo is never offered for registration when a name is near it.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { showAgent } from "../../app/agent_computer/src/domain/agents/show.ts";
import { peekInbox } from "../../app/agent_computer/src/domain/mesh/peek.ts";
import { type MeshAgents, openMeshAgents } from "../helpers/mesh.ts";
import { storeNames } from "../helpers/stores.ts";

const FLEET = 10_000;

describe.each(storeNames)("unknown agent names [%s]", (storeName) => {
  let mesh: MeshAgents;

  beforeAll(async () => {
    mesh = await openMeshAgents(storeName);
    await mesh.join("reviewer-alpha");
    await mesh.target.sql(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${FLEET})
       INSERT INTO agents (name, token_hash, created_at, updated_at, last_seen_at, holder_since, name_key)
       SELECT 'fleet-' || i, 'x', 0, 0, 0, 0, 'fleet-' || i FROM n`,
    );
  });
  afterAll(async () => {
    await mesh?.close();
  });

  const unknown = async (agentId: string) => {
    const error = await peekInbox(mesh.clock.deps(), { agentId, token: "act_x" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNKNOWN_AGENT" });
    return error as { hint: string; details?: { did_you_mean?: string[] } };
  };

  test("a typo gets the nearest registered names and no registration hint, among 10,000 names", async () => {
    const started = performance.now();
    const typo = await unknown("fleat-9999");
    const elapsed = performance.now() - started;
    expect(typo.details?.did_you_mean).toEqual(["fleet-9999"]);
    expect(typo.hint).toBe("did you mean fleet-9999? (agents-list-cli --include-stale lists the registered names)");
    // One bounded read and a banded comparison: far below a second even with the JIT of a test process.
    expect(elapsed).toBeLessThan(1000);
    expect((await unknown("reviewer-alhpa")).details?.did_you_mean).toEqual(["reviewer-alpha"]);
  });

  test("a lookalike (case, trailing punctuation) is suggested first", async () => {
    const error = await showAgent(mesh.clock.deps(), { agentId: "Reviewer-Alpha.", token: "act_x" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNKNOWN_AGENT", details: { did_you_mean: ["reviewer-alpha"] } });
  });

  test("a name near none keeps the hint that registers it", async () => {
    const fresh = await unknown("brand-new-agent-name");
    expect(fresh.details).toBeUndefined();
    expect(fresh.hint).toContain("a new agent registers with agent-checkin-cli --agent-id brand-new-agent-name --confirm");
  });
});
