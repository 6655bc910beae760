// What neutralising costs a one-shot command: every human output passes neutralize and every --json output safeJson
// (app/agent_computer/src/terminal-text.ts), in a process without JIT as the launchers run it. Beside each, the regex
// the CLIs used before on the same text (bodies only, a shorter class), so a reader sees what the wider class costs.
// Writes bench/results/terminal-text.json.
import { neutralize, safeJson } from "../app/agent_computer/src/terminal-text.ts";
import { round, spread, writeResults } from "./lib.ts";

if (process.env.BUN_JSC_useJIT !== "0") {
  const child = Bun.spawnSync([process.execPath, import.meta.path], {
    env: { ...process.env, BUN_JSC_useJIT: "0" },
    stdout: "inherit",
    stderr: "inherit",
  });
  process.exit(child.exitCode ?? 1);
}

const RUNS = 9;
// An inbox page of 100 messages of 9,000 characters: about the largest human output a read command prints.
const line = "PR 7 is ready for review, see the branch feature/x · ünïcödé 🙂 ";
const body = line.repeat(Math.ceil(9000 / line.length)).slice(0, 9000);
const page = Array.from({ length: 100 }, (_, i) => `#${i} msg_0190 from alice\n  | ${body}`).join("\n");
const hostilePage = page.replaceAll("PR", "P\u001b[2JR\u202e");
const json = { messages: Array.from({ length: 100 }, () => ({ body })) };

// biome-ignore lint/suspicious/noControlCharactersInRegex: the previous class, measured for comparison
const BEFORE_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const BEFORE_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const time = (f: () => unknown): number[] => {
  f();
  return Array.from({ length: RUNS }, () => {
    const start = performance.now();
    f();
    return performance.now() - start;
  });
};

const cases = {
  neutralize_page: time(() => neutralize(page)),
  before_neutralize_page: time(() => page.replace(BEFORE_TEXT, (c) => `\\x${c.charCodeAt(0).toString(16)}`)),
  neutralize_hostile_page: time(() => neutralize(hostilePage)),
  safe_json_page: time(() => safeJson(json, 2)),
  before_to_json_page: time(() => JSON.stringify(json, null, 2).replace(BEFORE_JSON, (c) => `\\u${c.charCodeAt(0)}`)),
};

const results = {
  page_chars: page.length,
  jit: "off",
  ...Object.fromEntries(Object.entries(cases).map(([name, samples]) => [name, spread(samples.map((s) => round(s)))])),
};
console.log(results);
writeResults("terminal-text", results);
