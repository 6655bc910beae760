// packaging/systemd/agent-computer-worker.service, the user unit the README installs: it starts a binary the package
// ships with flags the worker takes, stops it the way its drain needs (SIGTERM to the worker alone, a stop timeout
// longer than the drain), reads its settings from an optional file, and passes `systemd-analyze verify` without a
// warning where systemd is installed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { expect, test } from "vitest";
import { workerOptionsSchema } from "../../app/agent_computer/src/cli/worker/agent-computer-worker.ts";
import { repoRoot } from "../helpers/bin.ts";

const UNIT = join(repoRoot, "packaging", "systemd", "agent-computer-worker.service");
const text = readFileSync(UNIT, "utf8");

/** Each key of the unit file, by section, with every value it is given. */
const parse = (unit: string): Record<string, Record<string, string[]>> => {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | undefined;
  for (const raw of unit.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) current = sections[section[1] as string] = {};
    else {
      const at = line.indexOf("=");
      if (!current || at < 1) throw new Error(`not a key=value line: ${line}`);
      const key = line.slice(0, at);
      current[key] = [...(current[key] ?? []), line.slice(at + 1)];
    }
  }
  return sections;
};

const unit = parse(text);
const service = unit.Service ?? {};
const [program, ...args] = (service.ExecStart?.[0] ?? "").split(/\s+/);

test("ExecStart runs the worker the package installs, with flags the worker accepts", () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
    bin: Record<string, string>;
    files: string[];
  };
  expect(program).toMatch(/^\/.+\/agent-computer-worker$/);
  expect(pkg.bin[basename(program as string)]).toBe("bin/agent-computer-worker");
  expect(pkg.files).toContain("packaging/");
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2)
    flags[(args[i] as string).replace(/^--/, "").replace(/-(\w)/g, (_, c) => c.toUpperCase())] = args[i + 1] as string;
  expect(workerOptionsSchema.safeParse(flags).success).toBe(true);
});

test("a stop lets running attempts drain: SIGTERM to the worker alone, and longer than --drain-seconds to do it", () => {
  expect(service.KillMode).toEqual(["mixed"]);
  expect(Number(service.TimeoutStopSec?.[0])).toBeGreaterThan(workerOptionsSchema.parse({}).drainSeconds);
  expect(service.Restart).toEqual(["on-failure"]);
  expect(unit.Install?.WantedBy).toEqual(["default.target"]);
});

test("its settings come from an optional environment file under the user's configuration directory", () => {
  expect(service.EnvironmentFile).toEqual(["-%E/agent-computer/worker.env"]);
});

const analyze = spawnSync("systemd-analyze", ["--version"], { encoding: "utf8" });
test.skipIf(analyze.status !== 0)("systemd-analyze verify passes it with no warning (ExecStart pointed at this checkout)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ac-unit-"));
  const copy = join(dir, "agent-computer-worker.service");
  writeFileSync(copy, text.replace(program as string, join(repoRoot, "bin", "agent-computer-worker")));
  const runtime = mkdtempSync(join(tmpdir(), "ac-runtime-"));
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime, SYSTEMD_LOG_LEVEL: "notice" };
  const result = spawnSync("systemd-analyze", ["verify", "--user", copy], { encoding: "utf8", env });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  // The check can fail: a key systemd does not know is reported.
  writeFileSync(
    copy,
    `${text.replace(program as string, join(repoRoot, "bin", "agent-computer-worker"))}\n[Service]\nKillMod=mixed\n`,
  );
  const broken = spawnSync("systemd-analyze", ["verify", "--user", copy], { encoding: "utf8", env });
  expect(broken.stderr).toContain("KillMod");
});
