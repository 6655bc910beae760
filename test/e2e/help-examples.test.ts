// Every example in every --help is a shell command line that works: each one is run by bash, as pasted, in a fresh
// state directory (one per command) whose prerequisites are made first: agents checked in, a job directory, a
// running worker, a git repository with a change. Example ids (job_0193…) stand for real ones and are replaced by
// the ids the prerequisites created. An example that cannot run here is listed below with the reason (NOT_RUN),
// and one that is meant to fail in a fresh state (a stale wake token) names the exact error it gives (OUTCOMES).
import { execa } from "execa";
import { afterAll, describe, expect, test } from "vitest";
import { binaries } from "../../app/agent_computer/src/cli/binaries.ts";
import { binaryForm, repoRoot } from "../helpers/bin.ts";
import { ADMIN_PLANS } from "../helpers/help-examples/admin-plans.ts";
import { AUTOMATION_PLANS } from "../helpers/help-examples/automation-plans.ts";
import { HERDR_PLANS } from "../helpers/help-examples/herdr-plans.ts";
import { MESH_PLANS } from "../helpers/help-examples/mesh-plans.ts";
import type { CommandPlan } from "../helpers/help-examples/plan.ts";
import { RESERVE_PLANS } from "../helpers/help-examples/reserve-plans.ts";
import { startWorld, type World } from "../helpers/help-examples/world.ts";

/** Every command's examples, keyed by command name; a binary's own top-level examples under "<binary> (binary)". */
const collectExamples = async (): Promise<Map<string, readonly string[]>> => {
  const all = new Map<string, readonly string[]>();
  for (const [name, load] of Object.entries(binaries)) {
    const binary = await load();
    if (binary.examples?.length) all.set(`${name} (binary)`, binary.examples);
    if (binary.command) all.set(binary.command.name, binary.command.examples);
    for (const loadSub of Object.values(binary.subcommands ?? {})) {
      const def = await loadSub();
      all.set(def.name, def.examples);
    }
  }
  return all;
};

const examples = await collectExamples();
const plans: Record<string, CommandPlan> = {
  ...MESH_PLANS,
  ...AUTOMATION_PLANS,
  ...HERDR_PLANS,
  ...RESERVE_PLANS,
  ...ADMIN_PLANS,
};

/** Placeholders a person would have to replace by hand: <hex>, <64 hex>, <sha>, <id>… */
const PLACEHOLDER = /<[A-Za-z0-9][A-Za-z0-9 |_.-]*>/;
const today = new Date().toISOString().slice(0, 10);

describe("every --help example is a valid shell command line", () => {
  test("each command with examples has a plan here, and each plan a command", () => {
    expect([...examples.keys()].filter((k) => !plans[k])).toEqual([]);
    expect(Object.keys(plans).filter((k) => !examples.has(k))).toEqual([]);
  });

  test.each([...examples].flatMap(([command, lines]) => lines.map((line) => [command, line] as const)))(
    "%s: %s",
    async (_command, line) => {
      expect(line).not.toMatch(PLACEHOLDER);
      expect(line).not.toContain("…");
      for (const date of line.match(/\b\d{4}-\d{2}-\d{2}\b/g) ?? []) expect(date > today, `${date} is past`).toBe(true);
      const syntax = await execa("bash", ["-n", "-c", line], { reject: false });
      expect(syntax.exitCode, String(syntax.stderr)).toBe(0);
    },
  );
});

/** The allow-list: examples that are not run, each with its reason. Asserted so it cannot grow silently. */
const notRun = Object.entries(plans).flatMap(([command, plan]) =>
  Object.entries(plan.notRun ?? {}).map(([index, why]) => ({ command, line: examples.get(command)?.[Number(index)], why })),
);

test("the examples not run are exactly these, each with a reason", () => {
  expect(notRun.map((n) => [n.command, n.line])).toEqual([
    ["agent-wake-cli", "agent-wake-cli --run   # foreground, until SIGTERM"],
    ["agent-computer-worker", "agent-computer-worker                      # daemon on 127.0.0.1:8787, embedded store"],
    [
      "agent-computer-worker",
      "AGENT_COMPUTER_DATABASE_URL=postgres://ac@db/ac agent-computer-worker --concurrency 8 --port 8788",
    ],
  ]);
  for (const n of notRun) expect(n.why.length).toBeGreaterThan(20);
});

const worlds: World[] = [];
afterAll(async () => {
  for (const world of worlds) await world.stop();
});

describe.concurrent("every --help example runs", () => {
  test.each([...examples.keys()].filter((k) => plans[k]))(
    "%s",
    async (command) => {
      const plan = plans[command] as CommandPlan;
      const world = await startWorld({ form: binaryForm, repoRoot, herdr: plan.herdr === true, worker: plan.worker === true });
      worlds.push(world);
      for (const line of plan.given ?? []) await world.must(line);
      await plan.setup?.(world);
      const vars = { ...(await plan.vars?.(world)) };
      const lines = examples.get(command) ?? [];
      for (const [index, example] of lines.entries()) {
        if (plan.notRun?.[index] !== undefined) continue;
        for (const line of plan.before?.[index] ?? []) await world.must(line);
        Object.assign(vars, await plan.varsBefore?.[index]?.(world));
        let line = example;
        for (const [literal, real] of Object.entries(vars)) line = line.replaceAll(literal, real);
        const result = await world.sh(line);
        const outcome = plan.outcomes?.[index];
        const shown = `${line}\nexit ${result.exitCode}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`;
        if (outcome) {
          expect(result.exitCode, shown).toBe(outcome.exit);
          expect(result.stderr, shown).toContain(outcome.code);
        } else {
          expect(result.exitCode, shown).toBe(0);
          expect(result.stderr, shown).not.toMatch(/INVALID_INPUT|INTERNAL/);
        }
      }
    },
    240_000,
  );
});
