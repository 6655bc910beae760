// Start-up bench (issue 12, item 9): whole processes timed from the outside, in alternation, against two floors.
//   1. compiled agent-inbox-cli (through its bin/ launcher, store of 100 000 messages, 20 pending) against Bun
//      running a one-line script: target p50 at most 2.0x;
//   2. agent-inbox-cli --help (compiled, through its launcher) against a one-line program compiled with the same
//      flags as scripts/build.ts: target p50 at most 1.5x;
//   3. agent-inbox-cli --peek (compiled, through its launcher; what the mail-waiting hook runs after every tool
//      call) against the inbox read of item 1: target p50 at most 1.2x;
//   4. where the milliseconds go: prefixes of the same real command (AGENT_COMPUTER_STARTUP_EXIT_AFTER, see
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
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sendMessage } from "../app/agent_computer/src/domain/mesh/send.ts";
import { openStore } from "../app/agent_computer/src/store/open.ts";
import { compileOptions } from "../scripts/compile-options.ts";
import { type ProcessSpec, round, spread, timeAlternating, writeResults } from "./lib.ts";
import { depsFor, seedMessages, withAgents } from "./seed-mesh.ts";

const root = join(import.meta.dir, "..");
const bun = join(root, "node_modules/bun/bin/bun.exe");
const dist = join(root, "dist/agent-computer");
const runs = Number(process.env.BENCH_RUNS ?? 60);
// Optional: another build's dist/agent-computer (say, of the commit before a change), timed in the same rotation
// and the same way as direct_full and direct_help, for a before/after taken at the same moment.
const baseline = process.env.STARTUP_BASELINE_EXECUTABLE;
const floorScript = join(import.meta.dir, "fixtures/one-line.ts");
const scratch = mkdtempSync(join(tmpdir(), "ac-bench-startup-"));

try {
  statSync(dist);
} catch {
  throw new Error("dist/agent-computer is missing: run `npm run build` first (npm run bench does)");
}

// The compiled floor: the same one-line script, compiled with exactly the options of scripts/build.ts.
const compiledOneLine = join(scratch, "one-line");
const built = await Bun.build(compileOptions([floorScript], compiledOneLine));
if (!built.success) throw new AggregateError(built.logs, "compiling the one-line program failed");
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

// The prefixes of the real command, in order (cli/kernel/startup-phase.ts), and what each adds to the one before.
const phases = [
  ["entry", "entry: main chunk, zod core and locale, binary registry"],
  ["command-loaded", "command module: its chunks, zod/mini schemas, domain modules"],
  ["argv-parsed", "argv: commander loaded, the program built, argv parsed, zod validation"],
  ["store-open", "token read, store opened (SQLite, pragmas, migration check)"],
  ["command-run", "query: authentication, presence write, inbox read, checkpoint at close"],
] as const;

const commands: Record<string, ProcessSpec> = {
  bun_one_line_script: spec([bun, floorScript]),
  compiled_one_line_program: spec([compiledOneLine]),
  "agent-inbox-cli": spec([launcher, ...inboxArgs]),
  "agent-inbox-cli --help": spec([launcher, "--help"]),
  "agent-inbox-cli --peek": spec([launcher, ...inboxArgs, "--peek"]),
  timer_spawn_and_wait: spec(["true"]),
  ...Object.fromEntries(phases.map(([phase]) => [`direct_exit_after_${phase}`, direct(phase)])),
  direct_full: direct(),
  direct_help: direct(undefined, ["--help"]),
  bun_one_line_script_under_tmpdir: spec([bun, tmpFloorScript]),
  "agent-inbox-cli (source form)": spec([launcher, ...inboxArgs], { AGENT_COMPUTER_FORM: "source" }),
  ...(baseline
    ? {
        baseline_direct_full: spec([baseline, ...inboxArgs], asLauncherSetsIt),
        baseline_direct_help: spec([baseline, "--help"], asLauncherSetsIt),
      }
    : {}),
};
const loadBefore = loadavg()[0] as number;
const samples = timeAlternating(commands, runs);
const loadAfter = loadavg()[0] as number;
const figures = (pick: "wall_ms" | "cpu_ms") =>
  Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, spread(s[pick])]));
const wall = figures("wall_ms");
const cpu = figures("cpu_ms");
type Figures = typeof wall;

const p50 = (f: Figures, name: string): number => f[name]?.p50_ms ?? Number.NaN;
const ratio = (f: Figures, a: string, b: string, at: "p50_ms" | "min_ms" = "p50_ms"): number =>
  round((f[a]?.[at] ?? Number.NaN) / (f[b]?.[at] ?? Number.NaN));
const ratios = (f: Figures, at: "p50_ms" | "min_ms" = "p50_ms") => ({
  inbox_over_bun_one_line_script: ratio(f, "agent-inbox-cli", "bun_one_line_script", at),
  help_over_compiled_one_line_program: ratio(f, "agent-inbox-cli --help", "compiled_one_line_program", at),
  peek_over_inbox_read: ratio(f, "agent-inbox-cli --peek", "agent-inbox-cli", at),
});
/** Where the milliseconds go: each step is the difference of the medians of two neighbouring prefixes. */
const breakdown = (f: Figures) => {
  const steps: [string, string, string][] = [
    ["timer: spawn and wait for a process that does nothing", "", "timer_spawn_and_wait"],
    ["bare compiled runtime (a compiled one-line program)", "timer_spawn_and_wait", "compiled_one_line_program"],
  ];
  let before = "compiled_one_line_program";
  for (const [phase, label] of phases) {
    steps.push([label, before, `direct_exit_after_${phase}`]);
    before = `direct_exit_after_${phase}`;
  }
  steps.push(
    ["render and write the output, exit", before, "direct_full"],
    ["sh launcher (bin/agent-inbox-cli execs dist/agent-computer)", "direct_full", "agent-inbox-cli"],
  );
  const inbox = Object.fromEntries(steps.map(([label, a, b]) => [label, round(p50(f, b) - (a ? p50(f, a) : 0))]));
  const help = {
    "entry (as above)": round(p50(f, "direct_exit_after_entry") - p50(f, "compiled_one_line_program")),
    "help text from the build-time table, write, exit": round(p50(f, "direct_help") - p50(f, "direct_exit_after_entry")),
    "sh launcher": round(p50(f, "agent-inbox-cli --help") - p50(f, "direct_help")),
  };
  return { "agent-inbox-cli": inbox, "agent-inbox-cli --help, after the bare runtime": help };
};

const results = {
  runs,
  load_average_1m: { before: round(loadBefore), after: round(loadAfter) },
  build: "scripts/compile-options.ts: ESM, code splitting, bytecode, minify (and the --help table for the CLI)",
  ...(baseline ? { baseline_executable: baseline } : {}),
  executable_bytes: statSync(dist).size,
  ratios: ratios(wall),
  ratios_of_cpu_time: ratios(cpu),
  // The fastest run of each: on a machine shared with other work, the run least disturbed by it.
  ratios_of_fastest_run: ratios(wall, "min_ms"),
  targets: { inbox_over_bun_one_line_script_max: 2, help_over_compiled_one_line_program_max: 1.5, peek_over_inbox_read_max: 1.2 },
  breakdown_wall_p50_ms: breakdown(wall),
  breakdown_cpu_p50_ms: breakdown(cpu),
  wall_ms: wall,
  cpu_ms: cpu,
  old_floor: {
    why: "a one-line script under os.tmpdir(): Bun lists every directory above the script before it runs it",
    tmpdir_entries: readdirSync(tmpdir()).length,
    wall_p50_over_repo_floor: ratio(wall, "bun_one_line_script_under_tmpdir", "bun_one_line_script"),
  },
};
rmSync(scratch, { recursive: true, force: true });
rmSync(join(tmpFloorScript, ".."), { recursive: true, force: true });
const file = writeResults("startup", results);
const row = (name: string) => {
  const w = wall[name];
  const c = cpu[name];
  return `${name.padEnd(44)} ${String(w?.p50_ms).padStart(8)} ${`${w?.min_ms}-${w?.max_ms}`.padStart(16)} ${String(c?.p50_ms).padStart(8)}`;
};
console.log(
  `${"whole process, ms".padEnd(44)} ${"wall p50".padStart(8)} ${"wall min-max".padStart(16)} ${"cpu p50".padStart(8)}`,
);
for (const name of Object.keys(commands)) console.log(row(name));
console.log(
  JSON.stringify(
    { ratios: results.ratios, ratios_of_cpu_time: results.ratios_of_cpu_time, load_average_1m: results.load_average_1m },
    null,
    2,
  ),
);
console.log(
  JSON.stringify(
    { breakdown_wall_p50_ms: results.breakdown_wall_p50_ms, breakdown_cpu_p50_ms: results.breakdown_cpu_p50_ms },
    null,
    2,
  ),
);
console.log(`${runs} runs of each, in alternation; written to ${file}`);
