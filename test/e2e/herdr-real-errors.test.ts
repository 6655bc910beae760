// The binaries against the Herdr double playing 0.8.2 as it really answers (docs/herdr-facts.md §10): agent_blocked is a
// delivery that certainly failed, a message beginning with '-' is delivered verbatim, a reviewer whose agent comes up
// on a first-run screen gets the start timeout for a human to answer it, and capturing a turn's output budgets the
// time Herdr takes to scroll an alternate-screen agent.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { HandoffOutput } from "../../app/agent_computer/src/domain/herdr/handoff-results.ts";
import { type HerdrWorld, SHA_A, startHerdrWorld, turn } from "../helpers/herdr-world.ts";

/** Longer than the 10 s every quick Herdr command gets, shorter than Herdr's own worst case (about 20 s). */
const SCROLL_MS = 11_000;

let world: HerdrWorld;
const panes: Record<string, string> = {};

const reviewerStart = (name: string, extra: string[] = []) =>
  world.run("herdr-lease-cli", [
    "reviewer",
    "start",
    "--name",
    name,
    "--kind",
    "codex",
    "--cwd",
    world.fake.dir,
    "--purpose",
    "review",
    "--json",
    ...extra,
  ]);

const startReviewer = async (name: string): Promise<void> => {
  const started = await reviewerStart(name);
  expect(started.exitCode, started.stderr).toBe(0);
  panes[name] = started.json<{ pane_id: string }>().pane_id;
};

const ask = (target: string, words: string[]) => world.run("herdr-agent-control", ["ask", target, "--json", "--", ...words]);

const paneOfAgent = async (name: string): Promise<string | undefined> =>
  (await world.fake.state()).panes.find((pane) => pane.agent?.name === name)?.paneId;

beforeAll(async () => {
  world = await startHerdrWorld({ timing: { scrollReadMs: SCROLL_MS } });
  await world.acquire();
  for (const name of ["rev-block", "rev-dash"]) await startReviewer(name);
});
afterAll(async () => {
  await world?.stop();
});

describe("delivery as Herdr 0.8.2 answers it", () => {
  test("Herdr refusing the prompt as agent_blocked fails the receipt as delivery_failed; nothing is typed", async () => {
    const pane = panes["rev-block"] as string;
    // The agent turns blocked between admission and the prompt: Herdr refuses before typing.
    await world.fake.script({ op: "failNext", method: "agent.prompt", code: "agent_blocked", message: "agent is blocked" });
    const r = await ask("rev-block", ["review", "this"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const [result] = r.json<HandoffOutput>().results;
    expect(result).toMatchObject({ state: "failed", error: "delivery_failed", stage: "delivery" });
    expect(await world.fake.prompts(pane)).toEqual([]);
    // Nothing is left blocking the target: the next request goes through.
    await world.fake.script({ op: "onPrompt", paneId: pane, turns: [turn("fine")] });
    const next = await ask("rev-block", ["again"]);
    expect(next.json<HandoffOutput>().results[0]).toMatchObject({ state: "completed", output: "fine" });
  });

  test("a message beginning with '-' is delivered verbatim; only '--session' shapes are refused before anything", async () => {
    const pane = panes["rev-dash"] as string;
    await world.fake.script({ op: "onPrompt", paneId: pane, turns: [turn("listed")] });
    const r = await ask("rev-dash", ["-", "first", "item", "--verbose"]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json<HandoffOutput>().results[0]).toMatchObject({ state: "completed", output: "listed" });
    expect((await world.fake.prompts(pane)).map((p) => p.text)).toEqual(["- first item --verbose"]);
    const asked = (await world.fake.requests()).length;
    const refused = await ask("rev-dash", ["--session=elsewhere"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("--session");
    expect((await world.fake.requests()).length).toBe(asked);
  });
});

describe("Herdr's own server_unavailable", () => {
  test("is ridden out by the reads before delivery: the request is typed once and collected", async () => {
    const pane = panes["rev-dash"] as string;
    const before = (await world.fake.prompts(pane)).length;
    await world.fake.script({ op: "onPrompt", paneId: pane, turns: [turn("survived")] });
    await world.fake.script({
      op: "failNext",
      method: "agent.get",
      code: "server_unavailable",
      message: "server is shutting down",
      count: 3,
    });
    const r = await ask("rev-dash", ["once", "please"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const [result] = r.json<HandoffOutput>().results;
    expect(result).toMatchObject({ state: "completed" });
    expect(result?.output?.endsWith("survived")).toBe(true);
    expect((await world.fake.prompts(pane)).slice(before).map((p) => p.text)).toEqual(["once please"]);
  });
});

describe("a reviewer whose agent comes up on a first-run screen", () => {
  test("is started once a human answers the screen within the start timeout", async () => {
    await world.fake.script({ op: "onNextStart", outcome: "first_run" });
    const starting = reviewerStart("rev-trust", ["--start-timeout-ms", "20000"]);
    let answered = false;
    for (const began = Date.now(); !answered && Date.now() - began < 15_000; await Bun.sleep(100)) {
      const pane = await paneOfAgent("rev-trust");
      const status = (await world.fake.state()).panes.find((p) => p.paneId === pane)?.status;
      if (pane && status === "blocked") {
        await Bun.sleep(700); // herdr has answered agent_not_ready by now; the human answers later
        await world.fake.script({ op: "setState", paneId: pane, status: "idle" });
        answered = true;
      }
    }
    const started = await starting;
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.json()).toMatchObject({ state: "active", agent_name: "rev-trust" });
  });

  test("times out with what the user must do on the agent's screen, and closes the pane it created", async () => {
    await world.fake.script({ op: "onNextStart", outcome: "first_run" });
    const r = await reviewerStart("rev-stuck", ["--start-timeout-ms", "3500"]);
    expect(r.exitCode).toBe(4);
    const error = (JSON.parse(r.stderr) as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe("HERDR_REFUSED");
    expect(error.message).toContain("agent_not_ready");
    expect(error.hint).toMatch(/answer its first-run screen/);
    expect(await paneOfAgent("rev-stuck")).toBeUndefined();
  });
});

describe("closing the last pane of a worktree group", () => {
  test("Herdr's confirmation_required is a clear refusal that names the worktree group; the agent stays", async () => {
    const legacy = await world.fake.script({ op: "createAgent", kind: "codex", cwd: "/srv/group", name: "grouped" });
    await world.fake.script({ op: "worktreeGroup", workspaceId: legacy.workspace_id });
    const lease = await world.json<{ lease_id: string }>("herdr-lease-cli", [
      ...["adopt", "--target", "grouped", "--expected-pane-id", legacy.pane_id, "--expected-name", "grouped"],
      ...["--expected-kind", "codex", "--expected-cwd", "/srv/group", "--expected-seq", String(legacy.state_change_seq)],
      ...["--authority-ref", "acme/api#9", "--authority-sha256", SHA_A, "--purpose", "grouped worker"],
    ]);
    const r = await world.run("herdr-lease-cli", [
      ...["adopted", "close", "--lease-id", lease.lease_id, "--expected-seq", String(legacy.state_change_seq)],
      ...["--checkpoint-ref", "acme/api#9-c1", "--checkpoint-sha256", SHA_A, "--json"],
    ]);
    expect(r.exitCode).toBe(4);
    const error = (JSON.parse(r.stderr) as { error: { code: string; message: string; hint: string } }).error;
    expect(error).toMatchObject({ code: "HERDR_REFUSED", message: expect.stringContaining("confirmation_required") });
    expect(error.hint).toMatch(/worktree group/);
    expect((await world.fake.state()).panes.some((pane) => pane.paneId === legacy.pane_id)).toBe(true);
  });
});

describe("capturing output budgets Herdr's scrolling read", () => {
  test("wait-any on an idle alternate-screen agent returns its output although Herdr takes 11 s to scroll it", async () => {
    const agent = await world.fake.script({ op: "createAgent", kind: "codex", cwd: "/tmp/alt", name: "alt", altScreen: true });
    await world.fake.script({ op: "setOutput", paneId: agent.pane_id, text: "the answer" });
    const r = await world.run("herdr-lease-cli", [
      "wait-any",
      "--worker",
      "alt",
      "--after-seq",
      `alt=${agent.state_change_seq - 1}`,
      "--timeout-ms",
      "60000",
      "--json",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ target: "alt", output: "the answer" });
    expect((await world.fake.inputs(agent.pane_id)).map((input) => input.kind)).toEqual(["mouse_wheel"]);
  }, 60_000);
});
