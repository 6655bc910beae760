// The read-only Herdr client behind herdr-inspect-cli: its type has no mutating method, every call it can make is
// one of the fixed read commands, and the inspect commands reach Herdr only through it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Herdr } from "../../app/agent_computer/src/adapters/herdr/client.ts";
import { createHerdrReader, type HerdrReader } from "../../app/agent_computer/src/adapters/herdr/reader.ts";
import { type FakeHerdr, startFakeHerdr } from "../fixtures/fake-herdr/control.ts";

const READ_METHODS = ["status", "integrations", "sessions", "workspaces", "tabs", "panes", "agents", "readPane"];
const MUTATING: ReadonlyArray<keyof Herdr> = ["promptAgent", "startAgent", "createTab", "closePane"];
/** Socket methods a look may cause: the CLI's own ping and the list/read calls. Nothing else. */
const READ_ONLY_SOCKET_METHODS = new Set(["ping", "workspace.list", "tab.list", "pane.list", "agent.list", "pane.read"]);

let fake: FakeHerdr;
beforeAll(async () => {
  fake = await startFakeHerdr();
});
afterAll(async () => {
  await fake?.stop();
});

describe("HerdrReader", () => {
  test("has exactly the read methods and none of the adapter's mutating ones", () => {
    const reader = createHerdrReader({ env: fake.env });
    expect(Object.keys(reader).sort()).toEqual([...READ_METHODS].sort());
    for (const name of MUTATING) expect(name in reader).toBe(false);
    // The type forbids them too: adding one to HerdrReader breaks the type check here.
    // @ts-expect-error a reader cannot close a pane
    expect(reader.closePane).toBeUndefined();
    // @ts-expect-error a reader cannot prompt an agent
    expect(reader.promptAgent).toBeUndefined();
  });

  test("every call sends only read-only requests and leaves Herdr exactly as it was", async () => {
    const agent = await fake.script({ op: "createAgent", kind: "claude", cwd: "/tmp", name: "looked-at" });
    await fake.script({ op: "setOutput", paneId: agent.pane_id, text: "one\ntwo" });
    const before = await fake.state();
    const reader: HerdrReader = createHerdrReader({ env: { ...fake.env, HOME: fake.dir } });
    expect((await reader.status()).running).toBe(true);
    expect((await reader.integrations()).map((i) => i.label)).toContain("claude");
    expect((await reader.sessions())[0]).toMatchObject({ isDefault: true, running: true });
    expect((await reader.workspaces()).map((w) => w.workspaceId)).toContain(agent.workspace_id);
    expect((await reader.tabs(agent.workspace_id)).map((t) => t.tabId)).toEqual([agent.tab_id]);
    expect((await reader.panes()).map((p) => p.paneId)).toContain(agent.pane_id);
    expect((await reader.agents()).map((a) => a.name)).toContain("looked-at");
    expect(await reader.readPane(agent.pane_id, { source: "recent", lines: 1 })).toBe("two");
    const methods = ((await fake.requests()) as Array<{ method: string }>).map((r) => r.method);
    expect(methods.filter((m) => !READ_ONLY_SOCKET_METHODS.has(m))).toEqual([]);
    expect(await fake.state()).toEqual(before);
  });

  test("refuses argument values herdr could read as options before running anything", async () => {
    const reader = createHerdrReader({ env: fake.env });
    await expect(reader.readPane("--source", { source: "recent" })).rejects.toMatchObject({ kind: "invalid_argument" });
    await expect(reader.tabs("-x")).rejects.toMatchObject({ kind: "invalid_argument" });
  });

  test("herdr-inspect-cli's commands import the reader, never the full adapter", () => {
    const dir = join(import.meta.dirname, "../../app/agent_computer/src/cli/herdr");
    const files = readdirSync(dir).filter((name) => name.startsWith("inspect-"));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const name of files) {
      const text = readFileSync(join(dir, name), "utf8");
      expect([name, /adapters\/herdr\/client\.ts|kernel\/deps\.ts|buildHerdrDeps/.test(text)]).toEqual([name, false]);
    }
  });
});
