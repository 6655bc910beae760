// Writes bin/<name> for every binary in the registry (each a copy of scripts/launcher.sh with its name)
// and removes launchers of binaries that no longer exist; package.json "bin" (and "man") is kept equal to the list. `--check` exits 1 when bin/ is out of date.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binaries, longRunning } from "../app/agent_computer/src/cli/binaries.ts";

const root = join(import.meta.dir, "..");
const template = readFileSync(join(root, "scripts", "launcher.sh"), "utf8");
const check = process.argv.includes("--check");
// A one-shot command runs on JavaScriptCore's interpreter alone: JIT compilation never pays off within one
// call and cost a fifth of a mesh command's start-up (bench/mesh.ts). main.ts removes the setting again, so
// it never reaches a child process; a useJIT the caller set is left as it is. Daemons keep the JIT.
const JIT_OFF = `# One-shot command: JavaScriptCore's interpreter only; JIT compilation never pays off within one call.
if [ -z "\${BUN_JSC_useJIT+x}" ]; then export BUN_JSC_useJIT=0 AGENT_COMPUTER_JIT_OFF=1; fi`;
const JIT_ON = "# Long-running: keeps JavaScriptCore's JIT.";
// A daemon's compiled form runs through dist/<name>, a link to the executable that scripts/build.ts makes, so
// `ps -o args` names the daemon; a dist/ built before the link existed still runs.
const COMPILED_EXEC = 'exec "$root/dist/agent-computer" "$@"';
const namedExec = (name: string): string => `[ -x "$root/dist/${name}" ] && exec "$root/dist/${name}" "$@"\n  ${COMPILED_EXEC}`;
const launcherFor = (name: string): string => {
  const text = template.replaceAll("@NAME@", name);
  if (!longRunning.has(name)) return text.replace("@JIT@", JIT_OFF);
  if (!text.includes(COMPILED_EXEC)) throw new Error(`scripts/launcher.sh no longer has the line: ${COMPILED_EXEC}`);
  return text.replace("@JIT@", JIT_ON).replace(COMPILED_EXEC, namedExec(name));
};
const wanted = new Map(Object.keys(binaries).map((name) => [name, launcherFor(name)]));
const stale: string[] = [];

for (const [name, text] of wanted) {
  const file = join(root, "bin", name);
  if (existsSync(file) && readFileSync(file, "utf8") === text) continue;
  stale.push(name);
  if (!check) {
    writeFileSync(file, text);
    chmodSync(file, 0o755);
  }
}
for (const name of readdirSync(join(root, "bin"))) {
  if (wanted.has(name)) continue;
  stale.push(name);
  if (!check) rmSync(join(root, "bin", name));
}
const packageFile = join(root, "package.json");
const packageText = readFileSync(packageFile, "utf8");
const pkg = JSON.parse(packageText) as { bin?: Record<string, string>; man?: string[] };
pkg.bin = Object.fromEntries([...wanted.keys()].sort().map((name) => [name, `bin/${name}`]));
// The man pages scripts/build.ts generates, one per binary: npm links them when the package is installed globally.
pkg.man = [...wanted.keys()].sort().map((name) => `dist/man/man1/${name}.1`);
const wantedPackage = `${JSON.stringify(pkg, null, 2)}\n`;
if (wantedPackage !== packageText) {
  stale.push("package.json#bin/man");
  if (!check) writeFileSync(packageFile, wantedPackage);
}
if (check && stale.length > 0) {
  console.error(`bin/ is out of date for: ${stale.join(", ")}; run npm run write-bin`);
  process.exit(1);
}
