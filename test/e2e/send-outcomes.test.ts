// agent-send-cli through the real binary: a send that no recipient will read (none checked in) prints each recipient
// and exits 9 NOT_DELIVERED; a broadcast prints a summary and the command listing its recipients, whose pages end with
// the pasteable command for the next; a selection over the bound exits 2 naming the bound and the selectors. The
// rules behind these run on both stores in test/contract/mesh-broadcast-store.test.ts; this is the process's side.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runBin } from "../helpers/bin.ts";
import { identityEnv } from "../helpers/identity.ts";
import { shellWords } from "../helpers/shell-words.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

describe("agent-send-cli outcomes and broadcast output (sqlite)", () => {
  let target: StoreTarget;
  let env: Record<string, string>;
  const send = (args: string[], extraEnv: Record<string, string> = {}) =>
    runBin("agent-send-cli", ["--agent-id", "so-sender", ...args], { env: { ...env, ...extraEnv } });

  beforeAll(async () => {
    target = await createStoreTarget("sqlite");
    env = identityEnv(target);
    for (const id of ["so-sender", "so-away", "so-r1", "so-r2", "so-r3"]) {
      const r = await runBin("agent-checkin-cli", ["--agent-id", id, "--role", "so", "--confirm"], { env });
      if (r.exitCode !== 0) throw new Error(`check-in of ${id}: ${r.stderr}`);
    }
    const out = await runBin("agent-checkout-cli", ["--agent-id", "so-away", "--confirm"], { env });
    if (out.exitCode !== 0) throw new Error(`checkout: ${out.stderr}`);
  });
  afterAll(() => target.dispose());

  test("a send no recipient will read exits 9 NOT_DELIVERED, still reporting each recipient", async () => {
    const text = await send(["--to", "so-away", "--body", "anyone there?"]);
    expect(text.exitCode).toBe(9);
    expect(text.stdout).toMatch(
      /^sent msg_[0-9a-f]{32} from so-sender\n {2}so-away: NOT CHECKED IN: stored but will NOT be delivered/,
    );
    expect(text.stderr).toContain("agent-send-cli: NOT_DELIVERED: ");
    expect(text.stderr).not.toContain("    at ");
    const json = await send(["--to", "so-away,ghost-agent", "--body", "again", "--json"]);
    expect(json.exitCode).toBe(9);
    expect(json.json()).toMatchObject({
      recipients: [
        { agent_id: "ghost-agent", outcome: "unknown_agent" },
        { agent_id: "so-away", outcome: "not_checked_in" },
      ],
    });
    const error = (JSON.parse(json.stderr) as { error: Record<string, unknown> }).error;
    expect(error).toMatchObject({ code: "NOT_DELIVERED", message_id: json.json().id });
    // One reader is enough for success.
    expect((await send(["--to", "so-away,so-r1", "--body", "one of you"])).exitCode).toBe(0);
  });

  test("a broadcast prints a summary, then pages of recipients, each ending with the command for the next", async () => {
    const summary = await send(["--broadcast", "--role", "so", "--body", "hello all"]);
    expect(summary.exitCode).toBe(0);
    const lines = summary.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe("  live (checked in, will see it): 3: so-r1, so-r2, so-r3");
    expect(lines[2]).toMatch(/^each recipient: agent-send-cli --agent-id so-sender --recipients --cursor [A-Za-z0-9_-]+$/);
    const paged = await send(["--broadcast", "--role", "so", "--body", "paged", "--recipients", "--limit", "2"]);
    expect(paged.stdout).toContain("recipients:\n  so-r1: live (seq ");
    const next = paged.stdout.trimEnd().split("\n").at(-1) as string;
    expect(next).toMatch(/^1 more not shown: agent-send-cli /);
    const [binary, ...args] = shellWords(next.slice(next.indexOf("agent-send-cli")));
    const page2 = await runBin(binary as string, args, { env });
    expect(page2.exitCode).toBe(0);
    expect(page2.stdout).toMatch(/^recipients of msg_[0-9a-f]{32}:\n {2}so-r3: live \(seq \d+\)\n$/);
  });

  test("a selection over AGENT_COMPUTER_BROADCAST_MAX_RECIPIENTS exits 2, naming the bound and the selectors", async () => {
    const r = await send(["--broadcast", "--body", "too wide"], { AGENT_COMPUTER_BROADCAST_MAX_RECIPIENTS: "2" });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("selects 3 live agents, more than one broadcast may reach (at most 2");
    expect(r.stderr).toContain("--role, --repo or --capabilities");
    expect(r.stdout).toBe("");
  });
});
