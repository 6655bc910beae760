// The host's lease inventory in-process: a lease whose start was cut after its pane was made but before its agent's
// terminal was recorded (provisioning, pane_id set, terminal_id null) is shown, not a reason to fail the inventory.
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import type { Herdr, HerdrAgent } from "../../app/agent_computer/src/adapters/herdr/client.ts";
import type { HerdrDeps } from "../../app/agent_computer/src/domain/herdr/herdr-deps.ts";
import { leaseInventory } from "../../app/agent_computer/src/domain/herdr/lease-inventory.ts";
import { saveLease } from "../../app/agent_computer/src/domain/herdr/leases.ts";
import { herdrStateDirs } from "../../app/agent_computer/src/local/herdr-state.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";

test("a provisioning lease without a recorded terminal is listed as identity_mismatch, never CONFLICT", async () => {
  const home = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "lease-inventory-"));
  const dirs = herdrStateDirs(resolvePaths({ AGENT_COMPUTER_HOME: home }));
  const running = {
    paneId: "w1:p2",
    terminalId: "term_wk",
    workspaceId: "w1",
    tabId: "w1:t1",
    name: "rev",
    kind: "claude",
    status: "idle",
    stateChangeSeq: 3,
    cwd: home,
    focused: false,
    interactiveReady: true,
    launchPending: false,
  } as HerdrAgent;
  const now = Date.now();
  saveLease(
    dirs,
    {
      version: 1,
      lease_id: `lease_${"2".repeat(32)}`,
      type: "reviewer",
      controller_id: "ctl",
      state: "provisioning",
      purpose: "review",
      authority_ref: null,
      authority_sha256: null,
      agent_name: "rev",
      agent_kind: "claude",
      cwd: home,
      pane_id: "w1:p2",
      terminal_id: null,
      workspace_id: "w1",
      created_at: now,
      updated_at: now,
    },
    now,
  );
  const deps = {
    herdr: { listAgents: async () => [running] } as unknown as Herdr,
    dirs,
    store: { read: () => Promise.reject(new Error("no controller binding to look up")) } as unknown as Store,
  } as HerdrDeps;
  const inventory = await leaseInventory(deps);
  expect(inventory.agents[0]?.held_by).toMatchObject([
    { kind: "reviewer", state: "provisioning", identity: "identity_mismatch" },
  ]);
  expect(inventory).toMatchObject({ leased: 0, unleased: 1, leases_without_agent: [] });
});
