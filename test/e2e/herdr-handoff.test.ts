// herdr-agent-control's receipt protocol, black-box through bin/ against the Herdr double: delivery is confirmed
// by a LATER cursor (never +1), ambiguous deliveries stay blocking, results belong to their own turn only.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { HandoffOutput } from "../../app/agent_computer/src/domain/herdr/handoff-results.ts";
import { type HerdrWorld, startHerdrWorld, turn } from "../helpers/herdr-world.ts";

interface ReceiptRow {
  receipt: string;
  target: string;
  state: string;
  before_seq: number;
  after_seq: number | null;
  settled_seq: number | null;
  failure: string | null;
}

let world: HerdrWorld;
const panes: Record<string, string> = {};

const startReviewer = async (name: string): Promise<void> => {
  const lease = await world.json<{ pane_id: string }>("herdr-lease-cli", [
    "reviewer",
    "start",
    "--name",
    name,
    "--kind",
    "claude",
    "--cwd",
    world.fake.dir,
    "--purpose",
    "review",
  ]);
  panes[name] = lease.pane_id;
};
const ask = (target: string, words: string[], extra: string[] = []) =>
  world.run("herdr-agent-control", ["ask", target, "--json", ...extra, "--", ...words]);
const receipts = async (): Promise<ReceiptRow[]> =>
  (await world.json<{ receipts: ReceiptRow[] }>("herdr-agent-control", ["receipts"])).receipts;
const receiptOf = async (token: string): Promise<ReceiptRow> => (await receipts()).find((r) => r.receipt === token) as ReceiptRow;
const settle = async (name: string) => world.fake.script({ op: "setState", paneId: panes[name] as string, status: "idle" });
const prompts = async (name: string) => (await world.fake.prompts(panes[name])).map((p) => p.text);

beforeAll(async () => {
  world = await startHerdrWorld();
  await world.acquire();
  for (const name of ["rev-a", "rev-b", "rev-c"]) await startReviewer(name);
});
afterAll(async () => {
  await world?.stop();
});

describe("delivery and collection", () => {
  test("two agents working at once: cursors jump by more than 1, both still deliver and collect in request order", async () => {
    const noise = await world.fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp", name: "noise" });
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-a"] as string, turns: [turn("A says ok", "idle", 400)] });
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-b"] as string, turns: [turn("B says ok", "idle", 250)] });
    // An unleased agent flipping state consumes global cursor numbers while the reviewers work.
    const flips = setInterval(() => {
      void world.fake
        .script({ op: "setState", paneId: noise.pane_id, status: "working" })
        .then(() => world.fake.script({ op: "setState", paneId: noise.pane_id, status: "idle" }));
    }, 40);
    const r = await world.run("herdr-agent-control", [
      "ask-many",
      "--request",
      "rev-a=check, the API",
      "--request",
      "rev-b=check docs",
      "--json",
    ]);
    clearInterval(flips);
    expect(r.exitCode).toBe(0);
    const out = r.json<HandoffOutput>();
    expect(out.results.map((x) => [x.target, x.state, x.output])).toEqual([
      ["rev-a", "completed", "A says ok"],
      ["rev-b", "completed", "B says ok"],
    ]);
    expect(await prompts("rev-a")).toContain("check, the API");
    const rows = await Promise.all(out.results.map((x) => receiptOf(x.receipt)));
    for (const row of rows) {
      expect(row.after_seq as number).toBeGreaterThan(row.before_seq);
      expect(row.settled_seq as number).toBeGreaterThan(row.after_seq as number);
    }
    const jumps = rows.flatMap((row) => [
      (row.after_seq as number) - row.before_seq,
      (row.settled_seq as number) - (row.after_seq as number),
    ]);
    expect(Math.max(...jumps)).toBeGreaterThan(1);
  });

  test("mode=first returns the first result; the loser keeps working, blocks its target and is collected later", async () => {
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-a"] as string, turns: [turn("quick answer", "idle", 100)] });
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-b"] as string, turns: [[{ afterMs: 30, state: "working" }]] });
    const out = await world.json<HandoffOutput>("herdr-agent-control", [
      "ask-many",
      "--request",
      "rev-a=fast task",
      "--request",
      "rev-b=slow task",
      "--mode",
      "first",
    ]);
    expect(out.results.map((x) => [x.target, x.state])).toEqual([
      ["rev-a", "completed"],
      ["rev-b", "pending"],
    ]);
    expect(out.pending_receipts).toEqual([out.results[1]?.receipt]);
    const slow = (await world.fake.state()).panes.find((p) => p.paneId === panes["rev-b"]);
    expect(slow?.status).toBe("working");
    const refused = await ask("rev-b", ["another", "task"]);
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toContain("RECEIPT_OUTSTANDING");
    expect(await prompts("rev-b")).not.toContain("another task");
    await world.fake.script({ op: "appendOutput", paneId: panes["rev-b"] as string, text: "slow answer" });
    await settle("rev-b");
    const collected = await world.json<HandoffOutput>("herdr-agent-control", [
      "collect",
      "--receipt",
      out.pending_receipts[0] as string,
    ]);
    expect(collected.results[0]).toMatchObject({
      target: "rev-b",
      state: "completed",
      output: expect.stringContaining("slow answer"),
    });
  });

  test("abandon is refused while the agent works and allowed once it is settled; it stops nothing", async () => {
    // The turn stays working until the test ends it, so "still working" does not depend on machine speed.
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-c"] as string, turns: [[{ afterMs: 30, state: "working" }]] });
    const out = (await ask("rev-c", ["long", "task"], ["--timeout-ms", "400"])).json<HandoffOutput>();
    expect(out.results[0]).toMatchObject({ state: "pending", error: "timeout" });
    const early = await world.run("herdr-agent-control", ["abandon", "--receipt", out.pending_receipts[0] as string, "--json"]);
    expect(early.exitCode).toBe(4);
    expect(JSON.parse(early.stderr).error.code).toBe("AGENT_NOT_SETTLED");
    await world.fake.script({ op: "appendOutput", paneId: panes["rev-c"] as string, text: "long work done" });
    await settle("rev-c");
    const done = await world.json<HandoffOutput>("herdr-agent-control", [
      "collect",
      "--receipt",
      out.pending_receipts[0] as string,
    ]);
    expect(done.results[0]).toMatchObject({ state: "completed", output: expect.stringContaining("long work done") });
    const twice = await world.run("herdr-agent-control", ["abandon", "--receipt", out.pending_receipts[0] as string]);
    expect(twice.exitCode).toBe(4);
  });
});

describe("a Herdr server handoff", () => {
  test("collect waits out a handoff (its wait cut, the socket gone a while) and completes at the new server's cursor", async () => {
    const pane = panes["rev-b"] as string;
    await world.fake.script({ op: "onPrompt", paneId: pane, turns: [[{ afterMs: 30, state: "working" }]] });
    const out = (await ask("rev-b", ["survive", "this"], ["--timeout-ms", "400"])).json<HandoffOutput>();
    expect(out.results[0]).toMatchObject({ state: "pending", error: "timeout" });
    const token = out.pending_receipts[0] as string;
    const waitsBefore = ((await world.fake.requests()) as Array<{ method: string }>).filter(
      (r) => r.method === "agent.wait",
    ).length;
    const collecting = world.run("herdr-agent-control", ["collect", "--receipt", token, "--timeout-ms", "30000", "--json"]);
    const waits = async () =>
      ((await world.fake.requests()) as Array<{ method: string }>).filter((r) => r.method === "agent.wait");
    for (let i = 0; i < 600 && (await waits()).length === waitsBefore; i += 1) await new Promise((r) => setTimeout(r, 25));
    await world.fake.handoff(800);
    await world.fake.script({ op: "appendOutput", paneId: pane, text: "survived the handoff" });
    await settle("rev-b");
    const collected = await collecting;
    expect(collected.exitCode, collected.stderr).toBe(0);
    expect(collected.json<HandoffOutput>().results[0]).toMatchObject({
      state: "completed",
      output: expect.stringContaining("survived the handoff"),
    });
    expect((await receiptOf(token)).state).toBe("completed");
  });
});

describe("ambiguous deliveries", () => {
  test("a fast turn (no observed working) stays a blocking reserved receipt until abandoned once settled", async () => {
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-a"] as string, turns: ["fast"] });
    const out = (await ask("rev-a", ["quick", "one"])).json<HandoffOutput>();
    expect(out.results[0]).toMatchObject({ state: "reserved", stage: "delivery", error: "delivery_ambiguous" });
    expect(await prompts("rev-a")).toContain("quick one");
    const blocked = await ask("rev-a", ["next"]);
    expect(JSON.parse(blocked.stderr).error.code).toBe("RECEIPT_OUTSTANDING");
    const still = await world.json<HandoffOutput>("herdr-agent-control", [
      "collect",
      "--receipt",
      out.results[0]?.receipt as string,
    ]);
    expect(still.results[0]).toMatchObject({ state: "reserved", error: "delivery_ambiguous" });
    const abandoned = await world.json("herdr-agent-control", ["abandon", "--receipt", out.results[0]?.receipt as string]);
    expect(abandoned).toMatchObject({ state: "failed", failure: "abandoned" });
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-a"] as string, turns: [turn("after abandon")] });
    expect((await ask("rev-a", ["again"])).json<HandoffOutput>().results[0]).toMatchObject({
      state: "completed",
      output: expect.stringContaining("after abandon"),
    });
  });

  test("a turn too short to be seen working ends delivery at once as a reserved receipt, not a pending one", async () => {
    const pane = panes["rev-a"] as string;
    await world.fake.script({ op: "onPrompt", paneId: pane, turns: ["flash"] });
    const before = (await world.fake.state()).panes.find((p) => p.paneId === pane)?.agent?.stateChangeSeq as number;
    const out = (await ask("rev-a", ["tiny", "task"], ["--timeout-ms", "60000"])).json<HandoffOutput>();
    expect(out.results[0]).toMatchObject({ state: "reserved", stage: "delivery", error: "delivery_ambiguous" });
    // The delivery wait asked for any settled status too, so it did not sit out its timeout waiting for `working`.
    const prompt = ((await world.fake.requests()) as Array<{ method: string; params: Record<string, unknown> }>).findLast(
      (r) => r.method === "agent.prompt" && r.params.target === pane,
    );
    expect((prompt?.params.wait as { until?: string[] } | undefined)?.until).toEqual(["working", "idle", "done", "blocked"]);
    expect((await world.fake.state()).panes.find((p) => p.paneId === pane)?.agent?.stateChangeSeq).toBeGreaterThan(before);
    expect((await receiptOf(out.results[0]?.receipt as string)).state).toBe("reserved");
    await world.json("herdr-agent-control", ["abandon", "--receipt", out.results[0]?.receipt as string]);
  });

  test("a delayed Enter inside Herdr's activity gate still delivers; one that never comes stays reserved", async () => {
    await world.fake.script({ op: "delayEnter", paneId: panes["rev-b"] as string, ms: 350 });
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-b"] as string, turns: [turn("late but fine")] });
    expect((await ask("rev-b", ["slow", "enter"])).json<HandoffOutput>().results[0]).toMatchObject({
      state: "completed",
      output: expect.stringContaining("late but fine"),
    });
    await world.fake.script({ op: "delayEnter", paneId: panes["rev-b"] as string, ms: null });
    const stuck = (await ask("rev-b", ["never", "submitted"])).json<HandoffOutput>();
    expect(stuck.results[0]).toMatchObject({ state: "reserved", error: "delivery_ambiguous" });
    expect((await receiptOf(stuck.results[0]?.receipt as string)).state).toBe("reserved");
    await world.fake.script({ op: "delayEnter", paneId: panes["rev-b"] as string, ms: 40 });
    await world.json("herdr-agent-control", ["abandon", "--receipt", stuck.results[0]?.receipt as string]);
  });

  test("an agent that exits mid-task fails its receipt (identity_changed) instead of hanging", async () => {
    const pane = await world.fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp", name: "doomed" });
    // doomed is not leased: it is refused before anything is typed.
    const refused = await ask("doomed", ["hello"]);
    expect(JSON.parse(refused.stderr).error.code).toBe("TARGET_NOT_LEASED");
    expect(await world.fake.prompts(pane.pane_id)).toEqual([]);
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-c"] as string, turns: ["exit"] });
    const asked = await ask("rev-c", ["do", "it"]);
    expect(asked.stdout, asked.stderr).not.toBe("");
    const out = asked.json<HandoffOutput>();
    expect(out.results[0]).toMatchObject({ state: "failed", stage: "collect", error: "identity_changed" });
    const status = await world.json<{ leases: Array<{ agent_name: string; live: string }> }>("herdr-agent-control", ["status"]);
    expect(status.leases.find((l) => l.agent_name === "rev-c")?.live).toBe("missing");
  });
});

describe("results belong to their own turn", () => {
  test("a completed receipt replays while current and is refused once a later task ran", async () => {
    await world.fake.script({ op: "onPrompt", paneId: panes["rev-a"] as string, turns: [turn("first result")] });
    const first = (await ask("rev-a", ["first"])).json<HandoffOutput>().results[0];
    expect(first).toMatchObject({ state: "completed", output: expect.stringContaining("first result") });
    const replay = await world.json<HandoffOutput>("herdr-agent-control", ["collect", "--receipt", first?.receipt as string]);
    expect(replay.results[0]).toMatchObject({
      state: "completed",
      output: expect.stringContaining("first result"),
      state_change_seq: first?.state_change_seq,
    });
    await world.fake.script({ op: "setState", paneId: panes["rev-a"] as string, status: "working" });
    await world.fake.script({ op: "appendOutput", paneId: panes["rev-a"] as string, text: "LATER TASK OUTPUT" });
    await settle("rev-a");
    const refused = await world.run("herdr-agent-control", ["collect", "--receipt", first?.receipt as string, "--json"]);
    expect(refused.exitCode).toBe(0);
    expect(refused.json<HandoffOutput>().results[0]).toMatchObject({ state: "completed", error: "cursor_superseded" });
    expect(refused.stdout).not.toContain("LATER TASK OUTPUT");
  });

  test("a batch with one bad target sends nothing to any target", async () => {
    await world.fake.script({ op: "setState", paneId: panes["rev-b"] as string, status: "blocked" });
    const before = (await world.fake.prompts()).length;
    const r = await world.run("herdr-agent-control", ["ask-many", "--request", "rev-a=one", "--request", "rev-b=two", "--json"]);
    expect(r.exitCode).toBe(4);
    expect(JSON.parse(r.stderr).error.code).toBe("AGENT_NOT_SETTLED");
    expect((await world.fake.prompts()).length).toBe(before);
    await settle("rev-b");
  });

  test("ask refuses --mode, and a message that Herdr would take as its --session flag", async () => {
    expect((await world.run("herdr-agent-control", ["ask", "rev-a", "--mode", "first", "--", "x"])).exitCode).toBe(2);
    const dash = await world.run("herdr-agent-control", ["ask", "rev-a", "--", "--session=other", "now"]);
    expect(dash.exitCode).toBe(2);
    expect(dash.stderr).toContain("MESSAGE");
  });
});

test("status and receipts read without a Herdr pane and never show credentials", async () => {
  const r = await world.run("herdr-agent-control", ["receipts"], { HERDR_ENV: "", HERDR_PANE_ID: "" });
  expect(r.exitCode).toBe(0);
  expect(r.stdout).toContain("herdr-receipt-v1.");
  expect(await world.leakedSecrets()).toEqual([]);
});
