// Host verification through bin/ with the real bwrap: a writer's commit is verified by the recipe committed at the
// accepted base commit, offline, over a read-only copy, with one private scratch dir. A recipe that reaches for the
// network or writes outside scratch fails, a passing one passes, and release can cite only a passed receipt of the
// exact HEAD. The networked bootstrap is real only for a lockfile without dependencies (CI has no registry); its
// argv and mounts with dependencies are pinned in test/unit/herdr-verify-rules.test.ts.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addWorktree, git, headOf, makeRepo, statusSha256 } from "../helpers/git-repos.ts";
import { type HerdrWorld, SHA_A, startHerdrWorld } from "../helpers/herdr-world.ts";

interface Phase {
  kind: string;
  name: string;
  network: boolean;
  exit_code: number | null;
  timed_out: boolean;
  output_tail: string;
  output_bytes: number;
}
interface Receipt {
  id: string;
  status: string;
  commit: string;
  base_commit: string;
  recipe_sha256: string;
  phases: Phase[];
  skipped: string[];
}

let world: HerdrWorld;
let listener: Server;
let connections = 0;
let base: string;
let head: string;
let worktree: string;
let leaseId: string;
let baseRecipe: Buffer;
const HOME_TARGET = join(process.env.HOME as string, "written-from-the-sandbox");

const error = (stderr: string) =>
  (JSON.parse(stderr) as { error: { code: string; check?: string; message: string; receipt?: Receipt } }).error;
const node = (script: string, ...args: string[]) => ["node", "-e", script, ...args];
const recipe = (steps: unknown[], bootstrap?: unknown) => `${JSON.stringify({ steps, ...(bootstrap ? { bootstrap } : {}) })}\n`;
const HASHED = `idna==3.7 --hash=sha256:${"a".repeat(64)}\n`;

const verify = (args: string[], env: Record<string, string> = {}) =>
  world.run("herdr-lease-cli", ["writer", "verify", "--lease-id", leaseId, "--expected-head", head, ...args, "--json"], env);

beforeAll(async () => {
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const port = String((listener.address() as { port: number }).port);
  const connect = `require('net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', (e) => { console.error(e.code); process.exit(1); })`;

  world = await startHerdrWorld();
  await world.acquire();
  const main = await makeRepo();
  const files: Record<string, string> = {
    ".agent-computer/verify.json": recipe([
      {
        name: "sees-the-writers-commit",
        argv: node("require('fs').statSync('src/api/feature.ts'); require('fs').writeFileSync('/scratch/built', 'ok')"),
      },
      {
        name: "scratch-is-shared",
        argv: node("process.exit(require('fs').readFileSync('/scratch/built', 'utf8') === 'ok' ? 0 : 3)"),
      },
      {
        name: "env-is-cleared",
        argv: node("process.exit(Object.keys(process.env).some((k) => /HERDR|AGENT_/.test(k)) ? 4 : 0)"),
      },
    ]),
    "recipes/net.json": recipe([{ name: "connect", argv: node(connect) }]),
    "recipes/write-work.json": recipe([
      { name: "write-work", argv: node("require('fs').writeFileSync('/repo/docs/guide.md', 'x')") },
    ]),
    "recipes/write-home.json": recipe([
      { name: "write-home", argv: node("require('fs').writeFileSync(process.argv[1], 'x')", HOME_TARGET) },
    ]),
    "recipes/loud.json": recipe([
      {
        name: "loud",
        argv: node("process.stdout.write('x'.repeat(100000) + '\\n\\u001b[31mlast words\\n'); process.exitCode = 1"),
      },
    ]),
    "recipes/slow.json": recipe([
      { name: "sleeps", argv: ["sleep", "300"], timeout_s: 1 },
      { name: "never", argv: ["true"] },
    ]),
    "recipes/web.json": recipe([{ name: "modules", argv: node("require('fs').statSync('node_modules/.package-lock.json')") }], {
      web: true,
    }),
    "recipes/python.json": recipe([{ name: "t", argv: ["true"] }], { python: ["requirements.lock"] }),
    "recipes/unhashed.json": recipe([{ name: "t", argv: ["true"] }], { python: ["unhashed.lock"] }),
    "recipes/changed.json": recipe([{ name: "t", argv: ["true"] }], { python: ["changed.lock"] }),
    "recipes/link.json": recipe([{ name: "t", argv: ["true"] }], { python: ["link.lock"] }),
    "package.json": '{"name":"demo","version":"1.0.0","private":true}\n',
    "package-lock.json":
      '{"name":"demo","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{"":{"name":"demo","version":"1.0.0"}}}\n',
    "requirements.lock": HASHED,
    "unhashed.lock": "idna==3.7\n",
    "changed.lock": HASHED,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(main, path, ".."), { recursive: true });
    writeFileSync(join(main, path), text);
  }
  symlinkSync("requirements.lock", join(main, "link.lock"));
  await git(main, "add", ".");
  await git(main, "commit", "-q", "-m", "recipes");
  base = await headOf(main);
  baseRecipe = readFileSync(join(main, ".agent-computer/verify.json"));

  // The writer's commit: a new file, a rewritten recipe (which must not be used) and a changed lock.
  worktree = await addWorktree(main, "wt-verify", "feat-verify");
  writeFileSync(join(worktree, "src/api/feature.ts"), "export const feature = 1;\n");
  writeFileSync(join(worktree, ".agent-computer/verify.json"), recipe([{ name: "rigged", argv: ["false"] }]));
  writeFileSync(join(worktree, "changed.lock"), `idna==3.8 --hash=sha256:${"b".repeat(64)}\n`);
  await git(worktree, "add", ".");
  await git(worktree, "commit", "-q", "-m", "feature");
  head = await headOf(worktree);

  const lease = await world.json<{ lease_id: string }>("herdr-lease-cli", [
    ...["writer", "start", "--name", "w-verify", "--kind", "codex", "--purpose", "ticket 9", "--ticket-ref", "acme/api#9"],
    ...["--authority-ref", "acme/api#9", "--authority-sha256", SHA_A, "--worktree", worktree, "--branch", "feat-verify"],
    ...["--base-commit", base, "--expected-head", head, "--expected-status-sha256", await statusSha256(worktree)],
    ...["--owned-scope", "src/api", "--blocked-scope", "migrations", "--protected-branch", "main"],
  ]);
  leaseId = lease.lease_id;
}, 120_000);

afterAll(async () => {
  await world?.stop();
  listener?.close();
});

let passed: Receipt;

describe("a passing recipe", () => {
  test("passes over the writer's commit, with the base commit's recipe, and stores a 0600 receipt", async () => {
    const r = await verify([]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    passed = r.json<Receipt>();
    expect(passed).toMatchObject({ status: "passed", commit: head, base_commit: base, skipped: [] });
    expect(passed.recipe_sha256).toBe(createHash("sha256").update(baseRecipe).digest("hex"));
    expect(passed.phases.map((p) => [p.name, p.exit_code, p.network])).toEqual([
      ["sees-the-writers-commit", 0, false],
      ["scratch-is-shared", 0, false],
      ["env-is-cleared", 0, false],
    ]);
    const file = join(world.home, "herdr", "verifications", `${passed.id}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(passed);
  });

  test("a web bootstrap runs npm ci over the base copy and the steps see its node_modules read-only", async () => {
    const r = await verify(["--recipe", "recipes/web.json"]);
    expect(r.exitCode).toBe(0);
    expect(r.json<Receipt>().phases.map((p) => [p.kind, p.name, p.exit_code, p.network])).toEqual([
      ["bootstrap-web", "npm-ci", 0, true],
      ["step", "modules", 0, false],
    ]);
  });
});

describe("a recipe fails", () => {
  test("when it tries the network: its own namespace has no route to the host's loopback listener", async () => {
    const r = await verify(["--recipe", "recipes/net.json"]);
    expect(r.exitCode).toBe(4);
    const failure = error(r.stderr);
    expect(failure.code).toBe("VERIFICATION_FAILED");
    expect(failure.receipt?.phases[0]).toMatchObject({ name: "connect", exit_code: 1, network: false });
    expect(failure.receipt?.phases[0]?.output_tail).toContain("ECONNREFUSED");
    expect(connections).toBe(0);
  });

  test("when it writes into the read-only copy or to the host's HOME; nothing reaches the host", async () => {
    const work = error((await verify(["--recipe", "recipes/write-work.json"])).stderr);
    expect(work.code).toBe("VERIFICATION_FAILED");
    expect(work.receipt?.phases[0]?.output_tail).toContain("EROFS");
    expect(readFileSync(join(worktree, "docs/guide.md"), "utf8")).toBe("# guide\n");
    const home = error((await verify(["--recipe", "recipes/write-home.json"])).stderr);
    expect(home.code).toBe("VERIFICATION_FAILED");
    expect(home.receipt?.phases[0]?.exit_code).toBe(1);
    expect(existsSync(HOME_TARGET)).toBe(false);
  });

  test("with a bounded output tail, whose control characters a terminal never receives", async () => {
    const failure = error((await verify(["--recipe", "recipes/loud.json", "--tail-bytes", "256"])).stderr);
    const phase = failure.receipt?.phases[0];
    expect(Buffer.byteLength(phase?.output_tail ?? "")).toBeLessThanOrEqual(256);
    expect(phase?.output_bytes).toBe(100_000 + 1 + 16);
    expect(phase?.output_tail.endsWith("\u001b[31mlast words\n")).toBe(true);
    const human = await world.run("herdr-lease-cli", [
      ...["writer", "verify", "--lease-id", leaseId, "--expected-head", head, "--recipe", "recipes/loud.json"],
    ]);
    expect(human.exitCode).toBe(4);
    expect(human.stderr).toContain("(last output: \\x1b[31mlast words)");
    expect(human.stderr).not.toContain("\u001b");
  });

  test("when a step outlives its timeout: it is killed, the rest is skipped", async () => {
    const failure = error((await verify(["--recipe", "recipes/slow.json"])).stderr);
    expect(failure.code).toBe("VERIFICATION_FAILED");
    expect(failure.receipt).toMatchObject({ status: "failed", skipped: ["never"] });
    expect(failure.receipt?.phases[0]).toMatchObject({ name: "sleeps", timed_out: true });
  });
});

describe("refused or unsupported before anything runs", () => {
  test("a HEAD that is not the one observed", async () => {
    const r = await world.run("herdr-lease-cli", [
      ...["writer", "verify", "--lease-id", leaseId, "--expected-head", base, "--json"],
    ]);
    expect(error(r.stderr)).toMatchObject({ code: "VERIFICATION_REFUSED", check: "head_mismatch" });
  });

  test("python locks that lack hashes, changed since the base, or are symlinks", async () => {
    const uv = { AGENT_COMPUTER_UV: "/usr/bin/true" };
    expect(error((await verify(["--recipe", "recipes/unhashed.json"], uv)).stderr).check).toBe("lock_hashes");
    expect(error((await verify(["--recipe", "recipes/changed.json"], uv)).stderr).check).toBe("lock_changed");
    expect(error((await verify(["--recipe", "recipes/link.json"], uv)).stderr).check).toBe("lock_not_regular");
  });

  test("unsupported, with the reason, without bwrap, or without uv for a python bootstrap", async () => {
    const noBwrap = await verify([], { AGENT_COMPUTER_BWRAP: "/nonexistent/bwrap" });
    expect(noBwrap.exitCode).toBe(4);
    expect(error(noBwrap.stderr)).toMatchObject({ code: "UNSUPPORTED" });
    expect(error(noBwrap.stderr).message).toContain("bwrap not found (/nonexistent/bwrap)");
    const noUv = error((await verify(["--recipe", "recipes/python.json"], { AGENT_COMPUTER_UV: "/nonexistent/uv" })).stderr);
    expect(noUv.code).toBe("UNSUPPORTED");
    expect(noUv.message).toContain("uv was not found (/nonexistent/uv)");
  });
});

describe("release cites a receipt", () => {
  test("only a passed verification of this lease on exactly the released HEAD", async () => {
    const failed = error((await verify(["--recipe", "recipes/net.json"])).stderr).receipt?.id as string;
    const live = await world.json<{ leases: Array<{ lease_id: string; live_seq: number }> }>("herdr-agent-control", ["status"]);
    const seq = String(live.leases.find((lease) => lease.lease_id === leaseId)?.live_seq);
    const status = await statusSha256(worktree);
    const release = (id: string) =>
      world.run("herdr-lease-cli", [
        ...["writer", "release", "--lease-id", leaseId, "--expected-seq", seq, "--expected-head", head],
        ...["--expected-status-sha256", status, "--checkpoint-ref", "acme/api#9-c1"],
        ...["--checkpoint-sha256", SHA_A, "--verification-id", id, "--json"],
      ]);
    expect(error((await release(failed)).stderr)).toMatchObject({ check: "verification_failed" });
    expect(error((await release(`vrf_${"0".repeat(32)}`)).stderr)).toMatchObject({ check: "verification_unknown" });
    const released = await release(passed.id);
    expect(released.exitCode).toBe(0);
    expect(released.json()).toMatchObject({ lease: { state: "released", verification_id: passed.id } });
  });

  test("a released lease is not verified again: CONFLICT naming its state, nothing runs", async () => {
    const again = await verify([]);
    expect(again.exitCode).toBe(4);
    expect(error(again.stderr)).toMatchObject({ code: "CONFLICT", state: "released" });
    expect(error(again.stderr).message).toContain(`writer lease ${leaseId} is released`);
    expect(error(again.stderr).receipt).toBeUndefined();
  });
});

test("no credential leaked into output, receipts or state files", async () => {
  expect(await world.leakedSecrets()).toEqual([]);
});
