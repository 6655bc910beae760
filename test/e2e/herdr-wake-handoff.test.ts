// Auto-wake across a Herdr handoff, through the real binaries: an agent armed in a pane stays armed when Herdr hands
// its panes to a new server (new terminal id, agent missing a moment, then `unknown` at seq 0), and the next mail
// still wakes that pane. The handoff is driven from outside with the double's `herdr fake handoff`.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WAKE_PROMPT_PATTERN } from "../../app/agent_computer/src/domain/wake/prompt.ts";
import { type FakeHerdr, startFakeHerdr } from "../fixtures/fake-herdr/control.ts";
import { runHerdrCli } from "../fixtures/fake-herdr/run-cli.ts";
import { checkInAgent } from "../helpers/agents.ts";
import { runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";
import { stopWatchers, waitFor } from "../helpers/wake.ts";

describe("auto-wake across a Herdr handoff", () => {
  let target: StoreTarget;
  let fake: FakeHerdr;
  let home: string;
  const base = () => ({ ...target.env, AGENT_COMPUTER_WAKE_POLL_MS: "10", AGENT_COMPUTER_WAKE_COALESCE_MS: "20" });
  const CONTROL_ENV: Record<string, string> = { FAKE_HERDR_CONTROL: "1" };

  beforeAll(async () => {
    target = await createStoreTarget("sqlite");
    home = target.env.AGENT_COMPUTER_HOME as string;
    fake = await startFakeHerdr({ timing: { submitDelayMs: 20, turnStartMs: 20, turnMs: 100 } });
  });
  afterAll(async () => {
    await stopWatchers(home);
    rmSync(join(home, "wake"), { recursive: true, force: true });
    await fake?.stop();
    await target?.dispose();
  });

  test("the armed agent is followed into its pane's new terminal and the next mail wakes it", async () => {
    const sender = await checkInAgent(base(), home, "sender-handoff");
    const agent = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp", name: "sleeper" });
    const env = { ...base(), ...fake.env, HERDR_ENV: "1", HERDR_PANE_ID: agent.pane_id };
    const armed = await runBin(
      "agent-checkin-cli",
      ["--agent-id", "sleeper-1", "--json", "--herdr-pane", agent.pane_id, "--confirm"],
      {
        env,
      },
    );
    expect(armed.exitCode, armed.stderr).toBe(0);
    expect(armed.json<{ herdr_wake: { state: string } }>().herdr_wake.state).toBe("armed");
    // Let the watcher start following the pane before Herdr changes under it.
    await waitFor(
      async () => ((await fake.requests()) as Array<{ method: string }>).some((r) => r.method === "agent.wait") || undefined,
    );
    const handoff = await runHerdrCli({ env: { ...fake.env, ...CONTROL_ENV } }, [
      "fake",
      "handoff",
      "--gap-ms",
      "300",
      "--absent-ms",
      "400",
      "--unknown-ms",
      "1000",
    ]);
    expect(handoff.exitCode, handoff.stderr).toBe(0);
    // Past the re-detection: the agent reads its real status again under a new terminal id.
    const back = await waitFor(async () => {
      const pane = (await fake.state()).panes.find((p) => p.paneId === agent.pane_id);
      return pane && pane.status !== "unknown" ? pane : undefined;
    });
    expect(back.terminalId).not.toBe(agent.terminal_id);
    const sent = await runBin(
      "agent-send-cli",
      ["--from", sender.id, "--token-file", sender.tokenFile, "--to", "sleeper-1", "--body", "after the handoff"],
      { env: base() },
    );
    expect(sent.exitCode, sent.stderr).toBe(0);
    const [prompt] = await waitFor(async () => {
      const prompts = await fake.prompts(agent.pane_id);
      return prompts.length > 0 ? prompts : undefined;
    }, 30_000);
    expect(prompt?.text).toMatch(WAKE_PROMPT_PATTERN);
  }, 120_000);
});
