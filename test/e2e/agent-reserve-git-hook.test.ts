// The git guard with real repositories and real hooks: `git commit` and `git push` run the installed hooks, which
// refuse another agent's exclusively reserved paths (naming holder and expiry), let the holder through, chain a hook
// that was already there, respect core.hooksPath, and are skipped by --no-verify (advisory).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkInAgent, type TestAgent } from "../helpers/agents.ts";
import { binaryForm, repoRoot, runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget, storeNames } from "../helpers/stores.ts";

describe.each(storeNames)("agent-reserve-cli git-hook [%s]", (storeName) => {
  let target: StoreTarget;
  let dir: string;
  const agents: Record<string, TestAgent> = {};

  const env = (agentId?: string): Record<string, string> => ({
    ...target.env,
    PATH: `${join(repoRoot, "bin")}:${process.env.PATH ?? ""}`,
    HOME: dir,
    AGENT_COMPUTER_FORM: binaryForm,
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.invalid",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.invalid",
    GIT_CONFIG_NOSYSTEM: "1",
    ...(agentId ? { AGENT_COMPUTER_AGENT_ID: agentId } : {}),
  });
  const git = (cwd: string, args: string[], agentId?: string) =>
    execa("git", args, { cwd, env: env(agentId), extendEnv: false, reject: false, timeout: 60_000 });
  const mustGit = async (cwd: string, ...args: string[]) => {
    const r = await git(cwd, args);
    if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  const reserveCli = (cwd: string, agent: string, args: string[]) =>
    runBin("agent-reserve-cli", [...args, "--agent-id", agent, "--token-file", agents[agent]?.tokenFile ?? "", "--json"], {
      env: target.env,
      cwd,
    });
  /** A clone of a bare origin, with one commit pushed. */
  const makeRepo = async (name: string): Promise<string> => {
    const origin = join(dir, `${name}.git`);
    await mustGit(dir, "init", "-q", "--bare", "-b", "main", origin);
    const work = join(dir, name);
    await mustGit(dir, "clone", "-q", origin, work);
    mkdirSync(join(work, "src"), { recursive: true });
    writeFileSync(join(work, "README.md"), "hello\n");
    await mustGit(work, "add", ".");
    await mustGit(work, "commit", "-q", "-m", "first");
    await mustGit(work, "push", "-q", "origin", "main");
    return work;
  };
  const touch = async (work: string, path: string) => {
    writeFileSync(join(work, path), `${Math.random()}\n`);
    await mustGit(work, "add", path);
  };

  beforeAll(async () => {
    target = await createStoreTarget(storeName);
    dir = mkdtempSync(join(tmpdir(), "ac-reserve-hook-"));
    for (const id of ["alice", "bob"]) agents[id] = await checkInAgent(target.env, dir, id);
  }, 60_000);
  afterAll(async () => {
    await target?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("pre-commit refuses another agent's reserved path, lets the holder commit, chains the old hook; --no-verify skips it", async () => {
    const work = await makeRepo("commit");
    const hooks = join(work, ".git", "hooks");
    writeFileSync(join(hooks, "pre-commit"), `#!/bin/sh\necho ran >> "${join(dir, "old-hook-ran")}"\n`);
    chmodSync(join(hooks, "pre-commit"), 0o755);
    const installed = await runBin("agent-reserve-cli", ["git-hook", "install", "--json"], { env: target.env, cwd: work });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(installed.json<{ hooks: { hook: string; chained: string | null }[] }>().hooks).toMatchObject([
      { hook: "pre-commit", action: "installed", chained: join(hooks, "pre-commit.before-agent-reserve") },
      { hook: "pre-push", action: "installed", chained: null },
    ]);
    // Installing again changes only the guard's own files: it never chains itself.
    const again = await runBin("agent-reserve-cli", ["git-hook", "install", "--json"], { env: target.env, cwd: work });
    expect(again.json<{ hooks: { action: string }[] }>().hooks.map((h) => h.action)).toEqual(["updated", "updated"]);
    expect(readFileSync(join(hooks, "pre-commit.before-agent-reserve"), "utf8")).toContain("old-hook-ran");

    const held = await reserveCli(work, "alice", ["reserve", "--path", "src/**", "--reason", "refactor"]);
    expect(held.exitCode, held.stderr).toBe(0);
    const until = held.json<{ expires_at: string }>().expires_at;

    await touch(work, "src/api.ts");
    const refused = await git(work, ["commit", "-q", "-m", "bob's change"], "bob");
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(`alice holds src/** (exclusive) until ${until} [src/api.ts]`);
    expect(refused.stderr).toContain("--no-verify");
    expect(readFileSync(join(dir, "old-hook-ran"), "utf8")).toBe("ran\n");

    // Unnamed committers are refused too; the holder is let through.
    expect((await git(work, ["commit", "-q", "-m", "anonymous"])).exitCode).not.toBe(0);
    const holder = await git(work, ["commit", "-q", "-m", "alice's change"], "alice");
    expect(holder.exitCode, holder.stderr).toBe(0);

    // `git commit -a` and a commit naming its paths commit a temporary index (GIT_INDEX_FILE): that one is read.
    writeFileSync(join(work, "src", "api.ts"), "changed, unstaged\n");
    expect((await git(work, ["commit", "-q", "-a", "-m", "all"], "bob")).stderr).toContain("alice holds src/**");
    expect((await git(work, ["commit", "-q", "-m", "named", "--", "src/api.ts"], "bob")).stderr).toContain("alice holds src/**");
    await mustGit(work, "checkout", "--", "src/api.ts");

    // Paths outside the reservation pass; --no-verify skips the guard (advisory by nature).
    await touch(work, "README.md");
    expect((await git(work, ["commit", "-q", "-m", "docs"], "bob")).exitCode).toBe(0);
    await touch(work, "src/other.ts");
    expect((await git(work, ["commit", "-q", "--no-verify", "-m", "skipped"], "bob")).exitCode).toBe(0);

    // Released: it stops counting at once.
    expect((await reserveCli(work, "alice", ["release"])).exitCode).toBe(0);
    await touch(work, "src/api.ts");
    const after = await git(work, ["commit", "-q", "-m", "after release"], "bob");
    expect(after.exitCode, after.stderr).toBe(0);
  }, 120_000);

  test("pre-push checks the pushed commits' paths; core.hooksPath is where the hooks go", async () => {
    const work = await makeRepo("push");
    const custom = join(dir, "shared-hooks");
    await mustGit(work, "config", "core.hooksPath", custom);
    const installed = await runBin("agent-reserve-cli", ["git-hook", "install", "--json"], { env: target.env, cwd: work });
    expect(installed.exitCode, installed.stderr).toBe(0);
    expect(existsSync(join(custom, "pre-push"))).toBe(true);
    expect(existsSync(join(work, ".git", "hooks", "pre-push"))).toBe(false);

    await touch(work, "src/lib.ts");
    expect((await git(work, ["commit", "-q", "-m", "bob's lib"], "bob")).exitCode).toBe(0);
    expect((await reserveCli(work, "alice", ["reserve", "--path", "src/lib.ts"])).exitCode).toBe(0);
    const refused = await git(work, ["push", "-q", "origin", "main"], "bob");
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain("push refused");
    expect(refused.stderr).toContain("alice holds src/lib.ts");
    expect(await mustGit(work, "ls-remote", "origin", "main")).not.toContain(await mustGit(work, "rev-parse", "HEAD"));

    // A new branch is checked against what the remote already has.
    const branch = await git(work, ["push", "-q", "origin", "HEAD:refs/heads/topic"], "bob");
    expect(branch.exitCode).not.toBe(0);

    const holder = await git(work, ["push", "-q", "origin", "main"], "alice");
    expect(holder.exitCode, holder.stderr).toBe(0);
  }, 120_000);
});
