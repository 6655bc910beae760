// Host verification through bin/ with the real bwrap, on what exactly is verified and what a step can touch:
// the verified tree is the commit's tree byte for byte whatever the writer's .gitattributes ask of `git archive`
// (export-ignore, export-subst, ident, eol, a filter driver), and the tools the bootstraps made are read-only for
// every step, so a step that tries to replace one fails and a later step runs the original.
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { addWorktree, git, headOf, makeRepo, statusSha256 } from "../helpers/git-repos.ts";
import { type HerdrWorld, SHA_A, startHerdrWorld } from "../helpers/herdr-world.ts";

interface Phase {
  kind: string;
  name: string;
  exit_code: number | null;
  output_tail: string;
}
interface Receipt {
  status: string;
  commit: string;
  phases: Phase[];
}

let world: HerdrWorld;
let worktree: string;
let repoRoot: string;
let head: string;
let leaseId: string;
let fakeUv: string;
let queryingUv: string;

const recipe = (steps: unknown[], bootstrap?: unknown) => `${JSON.stringify({ steps, ...(bootstrap ? { bootstrap } : {}) })}\n`;
const node = (script: string) => ["node", "-e", script];

// Every path under /repo as `kind hex(path) [sha256 | hex(link target)]`, sorted: f/x a file (x: executable), l a
// symlink, d an empty directory (a gitlink). Names are printed as hex because a path need not be UTF-8.
const MANIFEST = `
const fs = require('fs'), crypto = require('crypto'), out = [];
const walk = (dir, rel) => {
  for (const name of fs.readdirSync(dir, { encoding: 'buffer' })) {
    const path = Buffer.concat([dir, Buffer.from('/'), name]);
    const r = rel ? Buffer.concat([rel, Buffer.from('/'), name]) : name;
    const st = fs.lstatSync(path);
    if (st.isSymbolicLink()) out.push('l ' + r.toString('hex') + ' ' + fs.readlinkSync(path, { encoding: 'buffer' }).toString('hex'));
    else if (st.isDirectory()) { if (fs.readdirSync(path).length === 0) out.push('d ' + r.toString('hex')); walk(path, r); }
    else out.push((st.mode & 0o111 ? 'x ' : 'f ') + r.toString('hex') + ' ' + crypto.createHash('sha256').update(fs.readFileSync(path)).digest('hex'));
  }
};
walk(Buffer.from('/repo'), null);
console.log(out.sort().join('\\n'));
`;

// Tries to replace each tool through every path a step can name: the mount point in /repo, the dirs scratch held
// before, and the dirs named by the environment. Reports each attempt and exits 0, so the next step still runs.
const TAMPER = `
const fs = require('fs');
const targets = [
  '/repo/node_modules/tool/cli.js', '/scratch/node_modules/tool/cli.js',
  process.env.UV_CACHE_DIR + '/marker', '/scratch/uv-cache/marker',
  '/opt/agent-computer/python/tool.py', '/scratch/python-bootstrap/tool.py',
];
for (const target of targets) {
  try {
    fs.writeFileSync(target, target.endsWith('.py') ? 'WHO = "replaced"\\n' : target.endsWith('.js') ? 'console.log("replaced")\\n' : 'replaced');
    console.log('REPLACED ' + target);
  } catch (error) { console.log('refused ' + target + ' ' + error.code); }
}
`;

const ORIGINAL = `
const { execFileSync } = require('child_process'), fs = require('fs');
const tool = execFileSync('node_modules/.bin/tool', { encoding: 'utf8' }).trim();
const marker = fs.readFileSync(process.env.UV_CACHE_DIR + '/marker', 'utf8');
const python = execFileSync('python3', ['-c', 'import tool; print(tool.WHO)'], { encoding: 'utf8' }).trim();
console.log(tool + ' ' + marker + ' ' + python);
process.exit(tool === 'original' && marker === 'original' && python === 'original' ? 0 : 1);
`;

/** What the commit holds, from Git's objects, in the manifest's form. */
const expectedManifest = async (repo: string, commit: string): Promise<string> => {
  const listing = await execa("git", ["-C", repo, "ls-tree", "-r", "-z", "--full-tree", commit], { encoding: "buffer" });
  const lines: string[] = [];
  const raw = Buffer.from(listing.stdout as Uint8Array);
  for (let start = 0; start < raw.length; ) {
    const end = raw.indexOf(0, start);
    const tab = raw.indexOf(0x09, start);
    const [mode, , oid] = raw.subarray(start, tab).toString("latin1").split(" ");
    const path = raw.subarray(tab + 1, end).toString("hex");
    start = end + 1;
    if (mode === "160000") {
      lines.push(`d ${path}`);
      continue;
    }
    const blob = await execa("git", ["-C", repo, "cat-file", "blob", oid as string], {
      encoding: "buffer",
      stripFinalNewline: false,
    });
    const bytes = Buffer.from(blob.stdout as Uint8Array);
    if (mode === "120000") lines.push(`l ${path} ${bytes.toString("hex")}`);
    else lines.push(`${mode === "100755" ? "x" : "f"} ${path} ${createHash("sha256").update(bytes).digest("hex")}`);
  }
  return lines.sort().join("\n");
};

const verify = (recipePath: string, uv = fakeUv) =>
  world.run(
    "herdr-lease-cli",
    [
      ...["writer", "verify", "--lease-id", leaseId, "--expected-head", head],
      ...["--recipe", recipePath, "--tail-bytes", "65536", "--json"],
    ],
    { AGENT_COMPUTER_UV: uv },
  );

const toolTarball = async (dir: string): Promise<Buffer> => {
  const pkg = join(dir, "pkg", "package");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), '{"name":"tool","version":"1.0.0","bin":{"tool":"cli.js"}}\n');
  writeFileSync(join(pkg, "cli.js"), '#!/usr/bin/env node\nconsole.log("original");\n');
  chmodSync(join(pkg, "cli.js"), 0o755);
  await execa("tar", ["-czf", join(dir, "tool-1.0.0.tgz"), "-C", join(dir, "pkg"), "package"]);
  return readFileSync(join(dir, "tool-1.0.0.tgz"));
};

beforeAll(async () => {
  world = await startHerdrWorld();
  await world.acquire();
  const main = await makeRepo();
  repoRoot = join(main, "..");
  const vendor = join(main, "vendor");
  mkdirSync(vendor);
  const tarball = await toolTarball(join(main, ".."));
  writeFileSync(join(vendor, "tool-1.0.0.tgz"), tarball);
  const integrity = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
  const dependency = { tool: "file:vendor/tool-1.0.0.tgz" };
  const files: Record<string, string> = {
    ".agent-computer/verify.json": recipe([{ name: "manifest", argv: node(MANIFEST) }]),
    "recipes/python.json": recipe([{ name: "t", argv: ["true"] }], { python: ["requirements.lock"] }),
    "recipes/tools.json": recipe(
      [
        { name: "tamper", argv: node(TAMPER) },
        { name: "runs-the-original", argv: node(ORIGINAL) },
        { name: "npm-runs-with-its-cache-read-only", argv: ["npm", "run", "--silent", "hello"] },
      ],
      { web: true, python: ["requirements.lock"] },
    ),
    "package.json": `${JSON.stringify({ name: "demo", version: "1.0.0", private: true, scripts: { hello: "tool" }, dependencies: dependency })}\n`,
    "package-lock.json": `${JSON.stringify({
      name: "demo",
      version: "1.0.0",
      lockfileVersion: 3,
      requires: true,
      packages: {
        "": { name: "demo", version: "1.0.0", dependencies: dependency },
        "node_modules/tool": { version: "1.0.0", resolved: dependency.tool, integrity, bin: { tool: "cli.js" } },
      },
    })}\n`,
    "requirements.lock": `idna==3.7 --hash=sha256:${"a".repeat(64)}\n`,
    // Shadows the standard library for a Python started with the copy first on sys.path.
    "json.py": 'raise SystemExit("repository code ran online")\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(main, path, ".."), { recursive: true });
    writeFileSync(join(main, path), text);
  }
  await git(main, "add", ".");
  await git(main, "commit", "-q", "-m", "recipes");
  const base = await headOf(main);

  // The writer's commit asks git archive to drop tests/, expand $Format$ and $Id$, write CRLF and run a filter.
  worktree = await addWorktree(main, "wt-exact", "feat-exact");
  const writes: Record<string, string> = {
    ".gitattributes":
      "tests export-ignore\nsubst.txt export-subst\nident.txt ident\ncrlf.txt text eol=crlf\nshout.txt filter=shout\n",
    "tests/hidden_test.py": "def test_hidden():\n    assert False\n",
    "subst.txt": "built from $Format:%H$\n",
    "ident.txt": "$Id$\n",
    "crlf.txt": "one\ntwo\n",
    "shout.txt": "quiet words\n",
    "src/api/run.sh": "#!/bin/sh\necho run\n",
  };
  for (const [path, text] of Object.entries(writes)) {
    mkdirSync(join(worktree, path, ".."), { recursive: true });
    writeFileSync(join(worktree, path), text);
  }
  writeFileSync(Buffer.from(`${worktree}/caf\xe9.txt`, "latin1"), "latin-1 name\n");
  chmodSync(join(worktree, "src/api/run.sh"), 0o755);
  symlinkSync("subst.txt", join(worktree, "link-to-subst"));
  await git(worktree, "config", "filter.shout.smudge", "tr a-z A-Z");
  await git(worktree, "add", ".");
  await git(worktree, "update-index", "--add", "--cacheinfo", `160000,${base},vendor/sub`);
  mkdirSync(join(worktree, "vendor/sub"));
  await git(worktree, "commit", "-q", "-m", "feature with attributes");
  head = await headOf(worktree);

  // Stand-ins for uv (CI reaches no package index): one fills the --target and cache dirs as uv would; the other
  // first starts the interpreter as uv does to read its version and platform, `python -c <script>`.
  const writeUv = (name: string, lines: string[]) => {
    const path = join(main, "..", name);
    writeFileSync(path, ["#!/bin/sh", ...lines, ""].join("\n"));
    chmodSync(path, 0o755);
    return path;
  };
  fakeUv = writeUv("fake-uv", [
    'while [ $# -gt 0 ]; do case "$1" in --target) t="$2"; shift;; --cache-dir) c="$2"; shift;; esac; shift; done',
    `mkdir -p "$t" "$c" && printf 'WHO = "original"\\n' > "$t/tool.py" && printf original > "$c/marker"`,
  ]);
  queryingUv = writeUv("querying-uv", [
    `python3 -c 'import json, sys; print("interpreter", json.dumps(list(sys.version_info[:2])))' || exit 3`,
  ]);

  const lease = await world.json<{ lease_id: string }>("herdr-lease-cli", [
    ...["writer", "start", "--name", "w-exact", "--kind", "codex", "--purpose", "ticket 10", "--ticket-ref", "acme/api#10"],
    ...["--authority-ref", "acme/api#10", "--authority-sha256", SHA_A, "--worktree", worktree, "--branch", "feat-exact"],
    ...["--base-commit", base, "--expected-head", head, "--expected-status-sha256", await statusSha256(worktree)],
    ...["--owned-scope", "src/api", "--blocked-scope", "migrations", "--protected-branch", "main"],
  ]);
  leaseId = lease.lease_id;
}, 120_000);

afterAll(async () => {
  await world?.stop();
  if (repoRoot) rmSync(repoRoot, { recursive: true, force: true });
});

describe("the verified tree is the commit's tree", () => {
  test("byte for byte, whatever its .gitattributes say: every file's hash is its blob's, links and modes kept", async () => {
    const r = await verify(".agent-computer/verify.json");
    expect(r.stderr).toBe("");
    const receipt = r.json<Receipt>();
    expect(receipt).toMatchObject({ status: "passed", commit: head });
    const seen = receipt.phases[0]?.output_tail.trim() ?? "";
    expect(seen).toBe(await expectedManifest(worktree, head));
    const hex = (path: string) => Buffer.from(path, "latin1").toString("hex");
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    for (const line of [
      `f ${hex("tests/hidden_test.py")} ${sha("def test_hidden():\n    assert False\n")}`,
      `f ${hex("subst.txt")} ${sha("built from $Format:%H$\n")}`,
      `f ${hex("ident.txt")} ${sha("$Id$\n")}`,
      `f ${hex("crlf.txt")} ${sha("one\ntwo\n")}`,
      `f ${hex("shout.txt")} ${sha("quiet words\n")}`,
      `f ${hex("caf\xe9.txt")} ${sha("latin-1 name\n")}`,
      `x ${hex("src/api/run.sh")} ${sha("#!/bin/sh\necho run\n")}`,
      `l ${hex("link-to-subst")} ${hex("subst.txt")}`,
      `d ${hex("vendor/sub")}`,
    ]) {
      expect(seen.split("\n")).toContain(line);
    }
  });
});

describe("the bootstrapped tools are read-only for every step", () => {
  test("a step that tries to replace node_modules, the uv cache or the python packages fails; the next runs the originals", async () => {
    const r = await verify("recipes/tools.json");
    expect(r.stderr).toBe("");
    const receipt = r.json<Receipt>();
    expect(receipt.phases.map((p) => [p.kind, p.name, p.exit_code])).toEqual([
      ["bootstrap-web", "npm-ci", 0],
      ["bootstrap-python", "uv:requirements.lock", 0],
      ["step", "tamper", 0],
      ["step", "runs-the-original", 0],
      ["step", "npm-runs-with-its-cache-read-only", 0],
    ]);
    const tamper = receipt.phases[2]?.output_tail ?? "";
    expect(tamper).not.toContain("REPLACED");
    expect(tamper).toContain("refused /repo/node_modules/tool/cli.js EROFS");
    expect(tamper).toContain("refused /opt/agent-computer/uv-cache/marker EROFS");
    expect(tamper).toContain("refused /opt/agent-computer/python/tool.py EROFS");
    expect(receipt.phases[3]?.output_tail.trim()).toBe("original original original");
    expect(receipt.phases[4]?.output_tail.trim()).toBe("original");
  });
});

describe("what runs online", () => {
  test("the python bootstrap's interpreter starts in an empty dir: a json.py in the base commit is not imported", async () => {
    const r = await verify("recipes/python.json", queryingUv);
    expect(r.stderr).toBe("");
    const online = r.json<Receipt>().phases[0];
    expect(online).toMatchObject({ kind: "bootstrap-python", exit_code: 0 });
    expect(online?.output_tail).toMatch(/^interpreter \[3, \d+\]\n$/);
  });

  test("the help says exactly what runs online", async () => {
    const help = await world.run("herdr-lease-cli", ["writer", "verify", "--help"]);
    expect(help.stdout.replace(/\s+/g, " ")).toContain(
      "Online, uv starts the host's Python only to read its version and platform (uv's interpreter query, run in an " +
        "empty /tmp so no repository file is on its path); it builds, imports and compiles no package.",
    );
  });
});

test("no credential leaked into output, receipts or state files", async () => {
  expect(await world.leakedSecrets()).toEqual([]);
});
