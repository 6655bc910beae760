// Writer admission and release through bin/, on real Git repositories with linked worktrees: the main
// checkout, protected branches, stale Git facts, non-literal and overlapping scopes are refused; release keeps
// branch, worktree and every byte.
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { binaryForm, repoRoot, runBin } from "../helpers/bin.ts";
import { addWorktree, git, headOf, makeRepo, statusSha256, treeSha256 } from "../helpers/git-repos.ts";
import { type HerdrWorld, SHA_A, startHerdrWorld } from "../helpers/herdr-world.ts";

let world: HerdrWorld;
let main: string;
const trees: Record<string, string> = {};
let base: string;

const error = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; check?: string; conflict?: string } }).error;

interface WriterArgs {
  name: string;
  worktree: string;
  branch: string;
  owned: string[];
  blocked?: string[];
  protectedBranches?: string[];
  head?: string;
  status?: string;
}

const startWriter = async (w: WriterArgs) =>
  world.run("herdr-lease-cli", [
    "writer",
    "start",
    "--name",
    w.name,
    "--kind",
    "codex",
    "--purpose",
    "ticket 7",
    "--ticket-ref",
    "acme/api#7",
    "--authority-ref",
    "acme/api#7",
    "--authority-sha256",
    SHA_A,
    "--worktree",
    w.worktree,
    "--branch",
    w.branch,
    "--base-commit",
    base,
    "--expected-head",
    w.head ?? (await headOf(w.worktree)),
    "--expected-status-sha256",
    w.status ?? (await statusSha256(w.worktree)),
    ...w.owned.flatMap((scope) => ["--owned-scope", scope]),
    ...(w.blocked ?? ["migrations"]).flatMap((scope) => ["--blocked-scope", scope]),
    ...(w.protectedBranches ?? ["main"]).flatMap((branch) => ["--protected-branch", branch]),
    "--json",
  ]);

beforeAll(async () => {
  world = await startHerdrWorld();
  await world.acquire();
  main = await makeRepo();
  base = await headOf(main);
  for (const [name, branch] of [
    ["wt-a", "feat-a"],
    ["wt-b", "feat-b"],
    ["wt-c", "feat-c"],
    ["wt-rel", "release"],
    ["wt-d", "feat-d"],
    ["wt-e", "feat-e"],
    ["wt-f", "feat-f"],
  ]) {
    trees[name as string] = await addWorktree(main, name as string, branch as string);
  }
});
afterAll(async () => {
  await world?.stop();
});

describe("admission refuses", () => {
  test("the main checkout, a protected branch, a symlinked path and a subdirectory", async () => {
    expect(error((await startWriter({ name: "w-main", worktree: main, branch: "main", owned: ["src"] })).stderr)).toMatchObject({
      code: "WRITER_ADMISSION_REFUSED",
      check: "main_checkout",
    });
    const rel = await startWriter({
      name: "w-rel",
      worktree: trees["wt-rel"] as string,
      branch: "release",
      owned: ["src"],
      protectedBranches: ["main", "release"],
    });
    expect(rel.exitCode).toBe(4);
    expect(error(rel.stderr).check).toBe("protected_branch");
    const link = join(world.workDir, "..", "link-to-a");
    symlinkSync(trees["wt-a"] as string, link);
    expect(error((await startWriter({ name: "w-link", worktree: link, branch: "feat-a", owned: ["src"] })).stderr).check).toBe(
      "worktree_path",
    );
    const sub = join(trees["wt-a"] as string, "src");
    expect(error((await startWriter({ name: "w-sub", worktree: sub, branch: "feat-a", owned: ["src"] })).stderr).check).toBe(
      "worktree_root",
    );
  });

  test("a HEAD, branch or status digest that is not what Git says now", async () => {
    const wt = trees["wt-a"] as string;
    expect(error((await startWriter({ name: "w1", worktree: wt, branch: "feat-b", owned: ["src"] })).stderr).check).toBe(
      "branch_mismatch",
    );
    expect(
      error((await startWriter({ name: "w1", worktree: wt, branch: "feat-a", owned: ["src"], head: "f".repeat(40) })).stderr)
        .check,
    ).toBe("head_mismatch");
    expect(
      error((await startWriter({ name: "w1", worktree: wt, branch: "feat-a", owned: ["src"], status: "0".repeat(64) })).stderr)
        .check,
    ).toBe("status_mismatch");
  });

  test("scopes that are not literal repo-relative paths, or overlap the writer's own blocked scopes", async () => {
    const wt = trees["wt-a"] as string;
    for (const owned of ["src/*", "../outside", "/etc", "src/./api"]) {
      const r = await startWriter({ name: "w1", worktree: wt, branch: "feat-a", owned: [owned] });
      expect(r.exitCode).toBe(2);
      expect(error(r.stderr).code).toBe("INVALID_INPUT");
    }
    expect(
      (await startWriter({ name: "w1", worktree: wt, branch: "feat-a", owned: ["src"], blocked: ["src/api"] })).exitCode,
    ).toBe(2);
  });

  test("a worktree where a Herdr agent already works", async () => {
    await world.fake.script({ op: "createAgent", kind: "claude", cwd: join(trees["wt-c"] as string, "src"), name: "squatter" });
    const r = await startWriter({ name: "w-c", worktree: trees["wt-c"] as string, branch: "feat-c", owned: ["lib"] });
    expect(error(r.stderr).check).toBe("agent_in_worktree");
  });
});

describe("exclusive scopes and release", () => {
  let writerA: { lease_id: string; pane_id: string };

  test("a second writer may not own, or block, what a held writer owns or blocks", async () => {
    const a = await startWriter({
      name: "w-a",
      worktree: trees["wt-a"] as string,
      branch: "feat-a",
      owned: ["src/api"],
      blocked: ["docs"],
    });
    expect(a.exitCode).toBe(0);
    writerA = a.json();
    expect(a.json()).toMatchObject({ type: "writer", state: "active", cwd: trees["wt-a"] });
    const wtB = trees["wt-b"] as string;
    const clash = async (owned: string[], blocked: string[]) =>
      error((await startWriter({ name: "w-b", worktree: wtB, branch: "feat-b", owned, blocked })).stderr);
    expect(await clash(["src/api/handlers"], ["migrations"])).toMatchObject({ code: "SCOPE_CONFLICT", conflict: "scope" });
    expect(await clash(["docs/guide.md"], ["migrations"])).toMatchObject({ code: "SCOPE_CONFLICT", conflict: "scope" });
    expect(await clash(["lib"], ["src/api/handlers"])).toMatchObject({ code: "SCOPE_CONFLICT", conflict: "scope" });
    const b = await startWriter({ name: "w-b", worktree: wtB, branch: "feat-b", owned: ["src/web"], blocked: ["docs"] });
    expect(b.exitCode).toBe(0);
  });

  test("release needs the Git state just observed, closes only the pane and keeps branch, worktree and bytes", async () => {
    const wt = trees["wt-a"] as string;
    writeFileSync(join(wt, "src", "api", "work-in-progress.ts"), "export const wip = true;\n");
    const head = await headOf(wt);
    const status = await statusSha256(wt);
    const before = {
      tree: treeSha256(wt),
      branch: await git(main, "rev-parse", "refs/heads/feat-a"),
      worktrees: await git(main, "worktree", "list", "--porcelain"),
    };
    const live = await world.json<{ leases: Array<{ lease_id: string; live_seq: number }> }>("herdr-agent-control", ["status"]);
    const seq = live.leases.find((lease) => lease.lease_id === writerA.lease_id)?.live_seq as number;
    const release = (expectedHead: string) =>
      world.run("herdr-lease-cli", [
        "writer",
        "release",
        "--lease-id",
        writerA.lease_id,
        "--expected-seq",
        String(seq),
        "--expected-head",
        expectedHead,
        "--expected-status-sha256",
        status,
        "--checkpoint-ref",
        "acme/api#7-c1",
        "--checkpoint-sha256",
        SHA_A,
        "--json",
      ]);
    expect(error((await release("e".repeat(40))).stderr).check).toBe("head_mismatch");
    const released = await release(head);
    expect(released.exitCode).toBe(0);
    expect(released.json()).toMatchObject({ lease: { state: "released" } });
    expect((await world.fake.state()).panes.some((pane) => pane.paneId === writerA.pane_id)).toBe(false);
    expect({
      tree: treeSha256(wt),
      branch: await git(main, "rev-parse", "refs/heads/feat-a"),
      worktrees: await git(main, "worktree", "list", "--porcelain"),
    }).toEqual(before);
    const next = await startWriter({
      name: "w-d",
      worktree: trees["wt-d"] as string,
      branch: "feat-d",
      owned: ["src/api"],
      blocked: ["migrations"],
    });
    expect(next.exitCode).toBe(0);
  });
});

describe("a writer's owned scopes are file reservations (agent-reserve-cli)", () => {
  const reservations = async () =>
    (await runBin("agent-reserve-cli", ["list", "--repo", main, "--json"], { env: world.env })).json<{
      reservations: { holder: string; patterns: string[]; exclusive: boolean }[];
    }>().reservations;

  test("agents see a lane's scopes, cannot reserve over them, block the lane with theirs; release ends them", async () => {
    const checkin = await runBin("agent-checkin-cli", ["--agent-id", "outsider", "--confirm", "--json"], { env: world.env });
    const tokenFile = join(world.workDir, "..", "outsider.token");
    writeFileSync(tokenFile, checkin.json<{ agent_token: string }>().agent_token, { mode: 0o600 });
    const reserve = (path: string) =>
      runBin(
        "agent-reserve-cli",
        ["reserve", "--agent-id", "outsider", "--token-file", tokenFile, "--repo", main, "--path", path, "--json"],
        { env: world.env },
      );

    const e = await startWriter({ name: "w-e", worktree: trees["wt-e"] as string, branch: "feat-e", owned: ["pkg/core"] });
    expect(e.exitCode, e.stderr).toBe(0);
    const lease = e.json<{ lease_id: string }>().lease_id;
    expect(await reservations()).toContainEqual(
      expect.objectContaining({ holder: `herdr-writer:${lease}`, patterns: ["pkg/core"], exclusive: true }),
    );
    // The git guard honours the lane: a commit elsewhere touching its scope is refused, the lane's own passes.
    expect((await runBin("agent-reserve-cli", ["git-hook", "install", "--repo", main], { env: world.env })).exitCode).toBe(0);
    const commitIn = async (dir: string, file: string) => {
      mkdirSync(join(dir, "pkg", "core"), { recursive: true });
      writeFileSync(join(dir, "pkg", "core", file), "x\n");
      const env = {
        ...world.env,
        PATH: `${join(repoRoot, "bin")}:${process.env.PATH ?? ""}`,
        AGENT_COMPUTER_FORM: binaryForm,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.invalid",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@example.invalid",
      };
      await execa("git", ["add", "."], { cwd: dir, env });
      return execa("git", ["commit", "-q", "-m", file], { cwd: dir, env, reject: false });
    };
    const outside = await commitIn(main, "outside.ts");
    expect(outside.exitCode).not.toBe(0);
    expect(outside.stderr).toContain(`herdr-writer:${lease} holds pkg/core`);
    await execa("git", ["reset", "-q", "--hard"], { cwd: main });
    const own = await commitIn(trees["wt-e"] as string, "lane.ts");
    expect(own.exitCode, own.stderr).toBe(0);

    const refused = await reserve("pkg/**");
    expect(refused.exitCode).toBe(4);
    expect(error(refused.stderr).code).toBe("CONFLICT");

    expect((await reserve("tools/**")).exitCode).toBe(0);
    const f = await startWriter({ name: "w-f", worktree: trees["wt-f"] as string, branch: "feat-f", owned: ["tools/gen"] });
    expect(error(f.stderr)).toMatchObject({ code: "SCOPE_CONFLICT", conflict: "reservation" });

    const live = await world.json<{ leases: Array<{ lease_id: string; live_seq: number }> }>("herdr-agent-control", ["status"]);
    const seq = live.leases.find((l) => l.lease_id === lease)?.live_seq as number;
    const wt = trees["wt-e"] as string;
    const released = await world.run("herdr-lease-cli", [
      "writer",
      "release",
      "--lease-id",
      lease,
      "--expected-seq",
      String(seq),
      "--expected-head",
      await headOf(wt),
      "--expected-status-sha256",
      await statusSha256(wt),
      "--checkpoint-ref",
      "acme/api#7-c2",
      "--checkpoint-sha256",
      SHA_A,
      "--json",
    ]);
    expect(released.exitCode, released.stderr).toBe(0);
    expect((await reservations()).some((r) => r.holder === `herdr-writer:${lease}`)).toBe(false);
    expect((await reserve("pkg/**")).exitCode).toBe(0);
  });
});

test("no credential leaked into output, Herdr requests or state files", async () => {
  expect(await world.leakedSecrets()).toEqual([]);
});
