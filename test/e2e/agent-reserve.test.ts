// File reservations through the real binary, on every store: a conflicting reservation is refused with CONFLICT
// (exit 4) naming the holder and its expiry, racing overlapping reservations from many processes leave exactly one
// winner, released, expired and unregistered agents' reservations stop counting at once, and one repository cloned
// under two spellings of its origin URL is one.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { runBin } from "../helpers/bin.ts";
import { git } from "../helpers/git-repos.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

const RACERS = 8;

/** A --json failure's error object (printed on stderr). */
const errorOf = (result: { stderr: string }) =>
  (JSON.parse(result.stderr) as { error: { code: string; message: string; conflicts?: unknown[] } }).error;

describe.each(storeNames)("agent-reserve-cli [%s]", (storeName) => {
  let target: StoreTarget;
  let dir: string;
  let repo: string;
  const agents: Record<string, TestAgent> = {};

  const makeClone = async (name: string, origin: string): Promise<string> => {
    const path = join(dir, name);
    mkdirSync(path);
    await git(path, "init", "-q", "-b", "main");
    await git(path, "remote", "add", "origin", origin);
    return path;
  };
  const reserveCli = (agent: string, args: string[], cwd = repo) =>
    runBin(
      "agent-reserve-cli",
      ["reserve", "--agent-id", agent, "--token-file", agents[agent]?.tokenFile ?? "", "--json", ...args],
      {
        env: target.env,
        cwd,
      },
    );
  const cli = (args: string[], cwd = repo) => runBin("agent-reserve-cli", [...args, "--json"], { env: target.env, cwd });

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    dir = mkdtempSync(join(tmpdir(), "ac-reserve-"));
    repo = await makeClone("app", "git@github.com:Org/App.git");
    for (const id of ["alice", "bob", "carol", ...Array.from({ length: RACERS }, (_, i) => `racer-${i}`)]) {
      agents[id] = await checkInAgent(target.env, dir, id);
    }
  }, 120_000);
  afterAll(async () => {
    await target?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("an overlapping exclusive reservation is refused with CONFLICT naming the holder and its expiry; nothing is granted", async () => {
    const granted = await reserveCli("alice", ["--path", "src/**", "--reason", "ticket 7", "--ttl", "600"]);
    expect(granted.exitCode, granted.stderr).toBe(0);
    const held = granted.json<{ id: string; repo: string; expires_at: string; patterns: string[] }>();
    expect(held).toMatchObject({ repo: "git:github.com/Org/App", patterns: ["src/**"], exclusive: true, holder: "alice" });

    const refused = await reserveCli("bob", ["--path", "src/a.ts"]);
    expect(refused.exitCode).toBe(4);
    const error = errorOf(refused);
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toContain(`alice holds src/** (exclusive) until ${held.expires_at}`);
    expect(error.conflicts).toEqual([
      { holder: "alice", id: held.id, patterns: ["src/**"], exclusive: true, expires_at: held.expires_at },
    ]);
    const shared = await reserveCli("bob", ["--path", "src", "--shared"]);
    expect(shared.exitCode).toBe(4);
    const bobs = await cli(["list", "--holder", "bob"]);
    expect(bobs.json<{ reservations: unknown[] }>().reservations).toEqual([]);

    // Paths that cannot meet, shared beside shared, and the holder's own overlaps are all granted.
    expect((await reserveCli("bob", ["--path", "*.md"])).exitCode).toBe(0);
    expect((await reserveCli("alice", ["--path", "src/a.ts"])).exitCode).toBe(0);
    expect((await reserveCli("carol", ["--path", "docs/**", "--shared"])).exitCode).toBe(0);
    expect((await reserveCli("bob", ["--path", "docs/x.md", "--shared"])).exitCode).toBe(0);
    const check = await cli(["check", "--path", "src/deep/x.ts", "--agent-id", "carol"]);
    expect(check.json()).toMatchObject({ clear: false, conflicts: [{ holder: "alice" }] });
  });

  test("the same repository cloned under another spelling of its origin URL is the same repository", async () => {
    const other = await makeClone("app-https", "https://GitHub.com/Org/App");
    const refused = await reserveCli("carol", ["--path", "src/index.ts"], other);
    expect(refused.exitCode).toBe(4);
    expect(errorOf(refused).message).toContain("alice holds src/**");
  });

  test("racing overlapping reservations from many processes: exactly one wins, every other is refused", async () => {
    const raceRepo = await makeClone("race", "https://example.invalid/race.git");
    for (const round of [0, 1]) {
      const patterns = ["lib/**", "lib/a.ts", "lib/*.ts", "**/a.ts", "lib", "lib/a.*", "*/a.ts", "lib/**/a.ts"];
      const results = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          reserveCli(`racer-${i}`, ["--path", patterns[i] ?? "lib", "--reason", `round ${round}`], raceRepo),
        ),
      );
      const codes = results.map((r) => r.exitCode);
      expect(
        codes.filter((c) => c === 0),
        results.map((r) => r.stdout + r.stderr).join("\n"),
      ).toHaveLength(1);
      expect(codes.filter((c) => c === 4)).toHaveLength(RACERS - 1);
      const listed = (await cli(["list"], raceRepo)).json<{ reservations: { holder: string }[] }>().reservations;
      expect(listed).toHaveLength(1);
      const winner = listed[0]?.holder ?? "";
      const released = await runBin(
        "agent-reserve-cli",
        ["release", "--agent-id", winner, "--token-file", agents[winner]?.tokenFile ?? ""],
        {
          env: target.env,
          cwd: raceRepo,
        },
      );
      expect(released.exitCode, released.stderr).toBe(0);
    }
  }, 120_000);

  test("released and expired reservations stop counting at once; renew never revives one", async () => {
    const own = await makeClone("lifecycle", "https://example.invalid/lifecycle.git");
    const first = (await reserveCli("alice", ["--path", "a/**", "--ttl", "30"], own)).json<{ id: string }>();
    expect((await reserveCli("bob", ["--path", "a/x"], own)).exitCode).toBe(4);
    const released = await cli(
      ["release", "--agent-id", "alice", "--token-file", agents.alice?.tokenFile ?? "", "--reservation-id", first.id],
      own,
    );
    expect(released.json()).toEqual({ released: [first.id] });
    const bobs = (await reserveCli("bob", ["--path", "a/x"], own)).json<{ id: string }>();
    expect(bobs.id).toMatch(/^rsv_/);

    await target.sql("UPDATE file_reservations SET expires_at = $1 WHERE id = $2", [Date.now() - 1, bobs.id]);
    expect((await reserveCli("alice", ["--path", "a/**"], own)).exitCode).toBe(0);
    const renewed = await cli(
      ["renew", "--agent-id", "bob", "--token-file", agents.bob?.tokenFile ?? "", "--reservation-id", bobs.id],
      own,
    );
    expect(renewed.exitCode).toBe(5);
    expect(errorOf(renewed).code).toBe("NOT_FOUND");
  });

  test("an unregistered agent's reservations end with it", async () => {
    const own = await makeClone("leaving", "https://example.invalid/leaving.git");
    const leaver = await checkInAgent(target.env, dir, "leaver");
    agents.leaver = leaver;
    expect((await reserveCli("leaver", ["--path", "x/**"], own)).exitCode).toBe(0);
    const gone = await runBin(
      "agent-identity-cli",
      ["unregister", "--agent-id", "leaver", "--token-file", leaver.tokenFile, "--confirm", "--json"],
      {
        env: target.env,
      },
    );
    expect(gone.exitCode, gone.stderr).toBe(0);
    expect((await cli(["list"], own)).json<{ reservations: unknown[] }>().reservations).toEqual([]);
    expect((await reserveCli("bob", ["--path", "x/y"], own)).exitCode).toBe(0);
    // A new agent of the same name does not inherit them.
    agents.leaver = await checkInAgent(target.env, dir, "leaver");
    expect((await cli(["list", "--holder", "leaver"], own)).json<{ reservations: unknown[] }>().reservations).toEqual([]);
  });

  test("list is bounded by --limit and says when there is more; bad flags are refused before any write", async () => {
    const own = await makeClone("many", "https://example.invalid/many.git");
    for (const n of [1, 2, 3]) expect((await reserveCli("carol", ["--path", `f${n}`], own)).exitCode).toBe(0);
    const page = (await cli(["list", "--limit", "2"], own)).json<{ reservations: unknown[]; more: boolean }>();
    expect(page.reservations).toHaveLength(2);
    expect(page.more).toBe(true);
    for (const bad of [
      ["--path", "!x"],
      ["--path", "a/../b"],
      ["--path", "x", "--ttl", "999999"],
      ["--path", "x", "--ttl", "5"],
    ]) {
      const refused = await reserveCli("carol", bad, own);
      expect(refused.exitCode, bad.join(" ")).toBe(2);
    }
    const outside = await reserveCli("carol", ["--path", "x", "--repo", dir]);
    expect(outside.exitCode).toBe(2);
    expect(errorOf(outside).message).toContain("--repo");
    expect((await cli(["list"], own)).json<{ reservations: unknown[] }>().reservations).toHaveLength(3);
  });
});
