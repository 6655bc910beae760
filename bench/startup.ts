// Start-up bench (issue 12, item 9): whole processes timed from the outside, in alternation, against two floors.
//   1. compiled agent-inbox-cli (through its bin/ launcher, store of 100 000 messages, 20 pending) against Bun
//      running a one-line script: target p50 at most 2.0x;
//   2. agent-inbox-cli --help (compiled, through its launcher) against a one-line program compiled with the same
//      flags as scripts/build.ts: target p50 at most 1.5x;
//   3. where the milliseconds go: prefixes of the same real command (AGENT_COMPUTER_STARTUP_EXIT_AFTER, see
//      cli/kernel/startup-phase.ts), the executable exec'd directly against through its sh launcher, the bare
//      compiled runtime and the timer's own spawn-and-wait. Each phase is the difference of two medians.
// Writes bench/results/startup.json. Wall times are what the targets are about; the CPU time (user + system) of
// each process is recorded beside them, since on a shared machine it moves less with the load than wall time.
//
// The floor's script lives in the repository (bench/fixtures/one-line.ts), never in a temp dir. Before Bun runs
// a file it lists every directory from / down to it (getdents64 on each, looking for package.json, tsconfig.json
// and node_modules), so a script under os.tmpdir() pays for every entry of the shared /tmp, where test suites and
// benches leave thousands of directories: the floor in bench/results/mesh.json rose from 19 to 26 ms over a day
// while Bun itself started in 8 to 10 ms. A compiled executable lists nothing, so the inbox was flattered (0.93x).
// The old floor is still timed, as bun_one_line_script_under_tmpdir, with the entry count of that directory.

import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import { compileFlags } from "../scripts/compile-flags.ts";
import { type ProcessSpec, round, spread, timeAlternating, writeResults } from "./lib.ts";
import { depsFor, seedMessages, withAgents } from "./seed-mesh.ts";

const root = join(import.meta.dir, "..");
const bun = join(root, "node_modules/bun/bin/bun.exe");
const dist = join(root, "dist/agent-computer");
const runs = Number(process.env.BENCH_RUNS ?? 60);
const floorScript = join(import.meta.dir, "fixtures/one-line.ts");
const scratch = mkdtempSync(join(tmpdir(), "ac-bench-startup-"));

try {
  statSync(dist);
} catch {
  throw new Error("dist/agent-computer is missing: run `npm run build` first (npm run bench does)");
}

// The compiled floor: the same one-line script, compiled with exactly the flags of scripts/build.ts.
const compiledOneLine = join(scratch, "one-line");
const built = Bun.spawnSync([bun, "build", ...compileFlags, floorScript, "--outfile", compiledOneLine], {
  stdout: "pipe",
  stderr: "pipe",
});
if (built.exitCode !== 0) throw new Error(`compiling the one-line program failed: ${built.stderr.toString()}`);
const tmpFloorScript = join(mkdtempSync(join(tmpdir(), "ac-floor-")), "one-line.ts");
writeFileSync(tmpFloorScript, "console.log(1);\n");

const home = join(scratch, "home");
const store = await openStore({ AGENT_COMPUTER_HOME: home });
const tokens = await withAgents(store, scratch);
await seedMessages(store, 100_000, Date.now());
for (let i = 0; i < 20; i++) {
  await sendMessage(depsFor(store), {
    from: "writer",
    token: tokens.writer,
    recipients: { kind: "to", agentIds: ["reader"] },
    body: `pending ${i}`,
  });
}
await store.close();

// Every process gets this whole environment and nothing else, and the repository as its working directory.
const env = { PATH: process.env.PATH, HOME: home, AGENT_COMPUTER_HOME: home };
const spec = (argv: string[], extra: Record<string, string> = {}): ProcessSpec => ({
  argv,
  env: { ...env, ...extra },
  cwd: root,
});
const inboxArgs = ["--agent-id", "reader", "--token-file", join(scratch, "reader.token")];
const launcher = join(root, "bin/agent-inbox-cli");
// What bin/agent-inbox-cli exports before it execs the executable (scripts/launcher.sh).
const asLauncherSetsIt = { AGENT_COMPUTER_INVOKED_AS: "agent-inbox-cli", BUN_JSC_useJIT: "0", AGENT_COMPUTER_JIT_OFF: "1" };
const direct = (phase?: string, args = inboxArgs) =>
  spec([dist, ...args], phase ? { ...asLauncherSetsIt, AGENT_COMPUTER_STARTUP_EXIT_AFTER: phase } : asLauncherSetsIt);

const commands: Record<string, ProcessSpec> = {
  bun_one_line_script: spec([bun, floorScript]),
  compiled_one_line_program: spec([compiledOneLine]),
  "agent-inbox-cli": spec([launcher, ...inboxArgs]),
  "agent-inbox-cli --help": spec([launcher, "--help"]),
  timer_spawn_and_wait: spec(["true"]),
  direct_exit_after_entry: direct("entry"),
  direct_exit_after_command_loaded: direct("command-loaded"),
  direct_exit_after_store_open: direct("store-open"),
  direct_exit_after_command_run: direct("command-run"),
  direct_full: direct(),
  direct_help: direct(undefined, ["--help"]),
  bun_one_line_script_under_tmpdir: spec([bun, tmpFloorScript]),
  "agent-inbox-cli (source form)": spec([launcher, ...inboxArgs], { AGENT_COMPUTER_FORM: "source" }),
};
const samples = timeAlternating(commands, runs);
const wall = Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, spread(s.wall_ms)]));
const cpu = Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, spread(s.cpu_ms)]));

const p50 = (figures: typeof wall, name: string): number => figures[name]?.p50_ms ?? Number.NaN;
const ratio = (figures: typeof wall, a: string, b: string): number => round(p50(figures, a) / p50(figures, b));
/** Each phase as the difference of the medians of two prefixes of the same command (ms). */
const breakdown = (figures: typeof wall) => {
  const d = (a: string, b: string) => round(p50(figures, a) - p50(figures, b));
  return {
    timer_spawn_and_wait: p50(figures, "timer_spawn_and_wait"),
    bare_compiled_runtime: d("compiled_one_line_program", "timer_spawn_and_wait"),
    entry_modules_and_dispatch: d("direct_exit_after_entry", "compiled_one_line_program"),
    command_module: d("direct_exit_after_command_loaded", "direct_exit_after_entry"),
    flags_token_and_store_open: d("direct_exit_after_store_open", "direct_exit_after_command_loaded"),
    query_presence_write_and_checkpoint: d("direct_exit_after_command_run", "direct_exit_after_store_open"),
    render_and_output: d("direct_full", "direct_exit_after_command_run"),
    sh_launcher: d("agent-inbox-cli", "direct_full"),
    total: p50(figures, "agent-inbox-cli"),
    help_after_entry: d("direct_help", "direct_exit_after_entry"),
    help_sh_launcher: d("agent-inbox-cli --help", "direct_help"),
  };
};
const tmpEntries = readdirSync(tmpdir()).length;

const results = {
  runs,
  build_flags: compileFlags.join(" "),
  executable_bytes: statSync(dist).size,
  wall_ms: wall,
  cpu_ms: cpu,
  ratios: {
    inbox_over_bun_one_line_script: ratio(wall, "agent-inbox-cli", "bun_one_line_script"),
    help_over_compiled_one_line_program: ratio(wall, "agent-inbox-cli --help", "compiled_one_line_program"),
    cpu_inbox_over_bun_one_line_script: ratio(cpu, "agent-inbox-cli", "bun_one_line_script"),
    cpu_help_over_compiled_one_line_program: ratio(cpu, "agent-inbox-cli --help", "compiled_one_line_program"),
  },
  breakdown_wall_p50_ms: breakdown(wall),
  breakdown_cpu_p50_ms: breakdown(cpu),
  old_floor: {
    why: "a one-line script under os.tmpdir(): Bun lists every directory above the script before it runs it",
    tmpdir_entries: tmpEntries,
    wall_p50_over_repo_floor: ratio(wall, "bun_one_line_script_under_tmpdir", "bun_one_line_script"),
  },
  targets: { inbox_over_bun_one_line_script_max: 2, help_over_compiled_one_line_program_max: 1.5 },
};
rmSync(scratch, { recursive: true, force: true });
rmSync(join(tmpFloorScript, ".."), { recursive: true, force: true });
const file = writeResults("startup", results);
console.log(JSON.stringify(results, null, 2));
console.log(`written to ${file}`);
