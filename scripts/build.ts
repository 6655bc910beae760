// `npm run build`: the fast form. One compiled multi-call executable with bytecode that dispatches on the
// name it is invoked as (bin/<name> sets it). It never autoloads .env or bunfig.toml from the working dir.
// Every binary's --help is rendered first, by its source form, and baked in (cli/kernel/static-help.ts); the same
// text becomes its man page, dist/man/man1/<binary>.1 (scripts/man-pages.ts).

import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaries, longRunning } from "../app/agent_computer/src/cli/binaries.ts";
import { version } from "../package.json";
import { compileOptions } from "./compile-options.ts";
import { writeManPages } from "./man-pages.ts";

const root = join(import.meta.dir, "..");
const entry = join(root, "app/agent_computer/src/cli/main.ts");
// A Worker's program is bundled only as an entry point of its own: the SQLite checkpoint thread's.
const checkpointWorker = join(root, "app/agent_computer/src/store/sqlite/checkpoint-worker.ts");
const outfile = join(root, "dist/agent-computer");

/** `<name> --help` as the source form prints it to a pipe, with a fresh HOME and no state dir of the caller's. */
const renderHelp = async (name: string, home: string): Promise<string> => {
  const child = Bun.spawn([join(root, "bin", name), "--help"], {
    env: {
      PATH: process.env.PATH,
      HOME: home,
      AGENT_COMPUTER_HOME: join(home, "state"),
      AGENT_COMPUTER_FORM: "source",
      NO_COLOR: "1",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [text, errors, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`${name} --help exited ${code}: ${errors}`);
  return text;
};

const home = mkdtempSync(join(tmpdir(), "ac-build-"));
const help: Record<string, string> = {};
try {
  const names = Object.keys(binaries);
  // Four at a time: enough to hide each process's start-up, few enough for a small machine.
  for (let i = 0; i < names.length; i += 4) {
    const batch = names.slice(i, i + 4);
    const texts = await Promise.all(batch.map((name) => renderHelp(name, home)));
    batch.forEach((name, k) => {
      help[name] = texts[k] as string;
    });
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
writeManPages(join(root, "dist/man"), help, version);
const built = await Bun.build(
  compileOptions([entry, checkpointWorker], outfile, { AGENT_COMPUTER_STATIC_HELP: JSON.stringify(help) }),
);
if (!built.success) throw new AggregateError(built.logs, "bun build failed");
// Each daemon runs through a link named after it (scripts/write-bin.ts), so `ps -o args` tells them apart.
for (const name of longRunning) {
  const link = join(root, "dist", name);
  rmSync(link, { force: true });
  symlinkSync("agent-computer", link);
}
// The commit this was built from, for the launchers to notice a checkout that moved on (scripts/launcher.sh).
const builtFrom = join(root, "dist/built-from");
const head = Bun.spawnSync(["git", "rev-parse", "--verify", "HEAD"], { cwd: root, stderr: "ignore" });
if (head.exitCode === 0 && existsSync(join(root, ".git"))) writeFileSync(builtFrom, head.stdout.toString());
else rmSync(builtFrom, { force: true });
console.log(`built ${outfile}`);
