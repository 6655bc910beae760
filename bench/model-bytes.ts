// What a model pays (issue 25, item 5): the bytes that reach a model's context in two workflows, measured from the
// real texts: the Skills' listing lines (in every request), the SKILL.md it opens, each --help it reads once, each
// command line it writes and each command's output (stdout and stderr, as a Bash tool returns them). The binaries
// are the compiled ones, run against a temporary state dir; workflow (b) runs inside the Herdr double.
//   (a) check in, read three messages, reply to one, acknowledge;
//   (b) a coordinator leases a reviewer in Herdr, asks it, collects the result.
// Each workflow runs twice in a fresh state dir: with the default text output and with --json. Tokens are estimated
// as bytes / 4 (no tokenizer is used). Writes bench/results/model-bytes.json and prints a table.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { binaries } from "../app/agent_computer/src/cli/binaries.ts";
import { startFakeHerdr } from "../test/fixtures/fake-herdr/control.ts";
import { FAST_TIMING, SHA_A, turn } from "../test/helpers/herdr-world.ts";
import { listingBytes, skillListingLines } from "../test/helpers/skills.ts";
import { round, writeResults } from "./lib.ts";
import { TASKS_A, TASKS_B } from "./model-bytes-texts.ts";

const root = join(import.meta.dir, "..");
const bytes = (text: string): number => Buffer.byteLength(text);

type StepKind = "skill_listing" | "skill_file" | "help" | "command" | "output";
interface Step {
  kind: StepKind;
  what: string;
  bytes: number;
}

/** One model's context as it grows: every text that reaches it, in order. */
class Context {
  readonly steps: Step[] = [];
  add(kind: StepKind, what: string, text: string): void {
    this.steps.push({ kind, what, bytes: bytes(text) });
  }
  total(): number {
    return this.steps.reduce((sum, step) => sum + step.bytes, 0);
  }
  byKind(): Record<StepKind, number> {
    const sums: Record<StepKind, number> = { skill_listing: 0, skill_file: 0, help: 0, command: 0, output: 0 };
    for (const step of this.steps) sums[step.kind] += step.bytes;
    return sums;
  }
}

const runBinary = async (env: Record<string, string>, words: string[]) => {
  const [name = "", ...args] = words;
  const result = await execa(join(root, "bin", name), args, {
    env: { ...env, AGENT_COMPUTER_FORM: "compiled", NO_COLOR: "1", FORCE_COLOR: "0" },
    extendEnv: false,
    reject: false,
    timeout: 60_000,
    stripFinalNewline: false,
  });
  return {
    exitCode: result.exitCode ?? -1,
    text: `${result.stdout}${result.stderr}`,
    stdout: result.stdout,
  };
};

/** The model runs a command: its line (what it writes) and the whole output (what it reads) enter its context. */
const modelRuns = async (ctx: Context, env: Record<string, string>, words: string[], line: string) => {
  const result = await runBinary(env, words);
  if (result.exitCode !== 0) throw new Error(`${line} exited ${result.exitCode}: ${result.text}`);
  const command = words
    .slice(
      0,
      Math.max(
        1,
        words.findIndex((word) => word.startsWith("-")),
      ),
    )
    .join(" ");
  ctx.add("command", command, line);
  ctx.add("output", command, result.text);
  return result;
};

const quote = (word: string): string => (/^[A-Za-z0-9_@%+=:,./#-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
const lineOf = (words: string[]): string => words.map(quote).join(" ");

const readHelps = async (ctx: Context, env: Record<string, string>, commands: string[]) => {
  for (const command of commands) {
    const words = [...command.split(" "), "--help"];
    const result = await runBinary(env, words);
    if (result.exitCode !== 0) throw new Error(`${command} --help exited ${result.exitCode}`);
    ctx.add("command", `${command} --help`, lineOf(words));
    ctx.add("help", command, result.text);
  }
};

const opensSkill = (ctx: Context, skill: string) => {
  ctx.add("skill_listing", "every Skill's listing line", `${skillListingLines().join("\n")}\n`);
  ctx.add("skill_file", `skills/${skill}/SKILL.md`, readFileSync(join(root, "skills", skill, "SKILL.md"), "utf8"));
};

const withJson = (words: string[], json: boolean): string[] => (json ? [...words, "--json"] : words);

/** (a) alice checks in, three agents write to her, she reads, replies to one and acknowledges. */
const mailWorkflow = async (json: boolean) => {
  const home = mkdtempSync(join(tmpdir(), "ac-model-bytes-"));
  const env = { PATH: process.env.PATH ?? "", HOME: home, AGENT_COMPUTER_HOME: join(home, "state") };
  const ctx = new Context();
  let payload = 0;
  try {
    opensSkill(ctx, "agent-mesh");
    await readHelps(ctx, env, ["agent-checkin-cli", "agent-inbox-cli", "agent-send-cli", "agent-ack-cli"]);
    const checkin = withJson(
      ["agent-checkin-cli", "--agent-id", "alice", "--role", "builder", "--status", "fixing the retry loop", "--confirm"],
      json,
    );
    await modelRuns(ctx, env, checkin, lineOf(checkin));
    for (const [sender, body] of TASKS_A) {
      // Other agents, not the model: their calls cost it nothing.
      for (const words of [
        ["agent-checkin-cli", "--agent-id", sender, "--role", "builder", "--confirm"],
        ["agent-send-cli", "--agent-id", sender, "--to", "alice", "--body", body],
      ]) {
        const r = await runBinary(env, words);
        if (r.exitCode !== 0) throw new Error(`${words.join(" ")}: ${r.text}`);
      }
      payload += bytes(body);
    }
    const read = withJson(["agent-inbox-cli", "--agent-id", "alice"], json);
    await modelRuns(ctx, env, read, lineOf(read));
    const listed = JSON.parse((await runBinary(env, ["agent-inbox-cli", "--agent-id", "alice", "--json"])).stdout) as {
      messages: { id: string; seq: number; from: string }[];
    };
    if (listed.messages.length !== 3) throw new Error(`expected 3 messages, got ${listed.messages.length}`);
    const answered = listed.messages[1] as { id: string };
    const reply = "Done: the retry loop now backs off 5 s, 30 s, 2 min; the flaky test passes 50 of 50 runs.";
    const send = withJson(["agent-send-cli", "--agent-id", "alice", "--reply-to", answered.id, "--body", reply], json);
    await modelRuns(ctx, env, send, lineOf(send));
    const ack = withJson(
      ["agent-ack-cli", "--agent-id", "alice", "--up-to-seq", String(Math.max(...listed.messages.map((m) => m.seq)))],
      json,
    );
    await modelRuns(ctx, env, ack, lineOf(ack));
    return { ctx, payload_bytes: payload + bytes(reply) };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
};

/** (b) a coordinator in Herdr acquires its controller lease, starts a reviewer, asks it, and collects the result. */
const herdrWorkflow = async (json: boolean) => {
  const home = mkdtempSync(join(tmpdir(), "ac-model-bytes-"));
  const fake = await startFakeHerdr({ timing: FAST_TIMING });
  const ctx = new Context();
  try {
    const coordinator = await fake.script({ op: "createAgent", kind: "claude", cwd: home, name: "coord" });
    const env = {
      ...fake.env,
      HOME: home,
      AGENT_COMPUTER_HOME: join(home, "state"),
      HERDR_ENV: "1",
      HERDR_PANE_ID: coordinator.pane_id,
      AGENT_CONTROL_CONTROLLER_ID: "proj.ctl",
      // This process plays the coordinator agent's process, as in the Herdr test suites.
      AGENT_CONTROL_CONTROLLER_PID: String(process.pid),
    };
    opensSkill(ctx, "herdr-coordination");
    await readHelps(ctx, env, [
      "herdr-lease-cli",
      "herdr-lease-cli controller acquire",
      "herdr-lease-cli reviewer start",
      "herdr-agent-control",
      "herdr-agent-control ask",
      "herdr-agent-control collect",
    ]);
    const acquire = withJson(
      ["herdr-lease-cli", "controller", "acquire", "--authority-ref", "acme/api#7", "--authority-sha256", SHA_A],
      json,
    );
    await modelRuns(ctx, env, acquire, lineOf(acquire));
    const start = withJson(
      [
        "herdr-lease-cli",
        "reviewer",
        "start",
        "--name",
        "rev-api",
        "--kind",
        "claude",
        "--cwd",
        home,
        "--purpose",
        "review the retry change",
      ],
      json,
    );
    await modelRuns(ctx, env, start, lineOf(start));
    const inventory = JSON.parse((await runBinary(env, ["herdr-lease-cli", "inventory", "--json"])).stdout) as {
      agents: { name: string; pane_id: string }[];
    };
    const pane = inventory.agents.find((agent) => agent.name === "rev-api")?.pane_id;
    if (!pane) throw new Error("the reviewer lease has no pane");
    // The review takes longer than ask waits, so the result is collected by receipt.
    await fake.script({ op: "onPrompt", paneId: pane, turns: [turn(TASKS_B.review, "idle", 1_500)] });
    const ask = withJson(["herdr-agent-control", "ask", "rev-api", "--timeout-ms", "400", "--", TASKS_B.request], json);
    const asked = await modelRuns(ctx, env, ask, lineOf(ask));
    const receipt = /herdr-receipt-v1\.[0-9a-f-]{36}/.exec(asked.text)?.[0];
    if (!receipt) throw new Error(`no receipt in: ${asked.text}`);
    const collect = withJson(["herdr-agent-control", "collect", "--receipt", receipt, "--timeout-ms", "20000"], json);
    const collected = await modelRuns(ctx, env, collect, lineOf(collect));
    if (!collected.text.includes("no flaky retry remains")) throw new Error(`the review did not come back: ${collected.text}`);
    return { ctx, payload_bytes: bytes(TASKS_B.request) + bytes(TASKS_B.review) };
  } finally {
    await fake.stop();
    rmSync(home, { recursive: true, force: true });
  }
};

const summary = (run: { ctx: Context; payload_bytes: number }) => {
  const total = run.ctx.total();
  return {
    total_bytes: total,
    est_tokens: Math.round(total / 4),
    by_kind: run.ctx.byKind(),
    payload_bytes: run.payload_bytes,
    steps: run.ctx.steps,
  };
};

const workflows = {
  a_mail: {
    about: "check in, read three messages, reply to one, acknowledge (agent-mesh Skill)",
    text: summary(await mailWorkflow(false)),
    json: summary(await mailWorkflow(true)),
  },
  b_herdr_review: {
    about: "a coordinator leases a reviewer in Herdr, asks it, collects the result (herdr-coordination Skill)",
    text: summary(await herdrWorkflow(false)),
    json: summary(await herdrWorkflow(true)),
  },
};

// The issue's figures for the tool schemas other systems put in every request (not measured here).
const anchors = [
  {
    system: "bot-relay-mcp",
    what: "37 MCP tools' schemas, every request",
    bytes: 79_000,
    source: "issue 25's figure (about 79 KB)",
  },
  { system: "herdr-mesh", what: "its tools' schemas, every request", bytes: 16_800, source: "issue 25's figure (16.8 KB)" },
  {
    system: "MCP Agent Mail",
    what: "its tools' schemas, every request",
    est_tokens: 25_000,
    bytes: 100_000,
    source: "issue 25's figure (~25k tokens, reported in MCP Agent Mail's own issues); bytes = tokens x 4",
  },
];

/** Every command's --help size (the budget is 8 KB each), largest first: where the margin is thin. */
const helpSizes = async (): Promise<{ command: string; bytes: number }[]> => {
  const env = { PATH: process.env.PATH ?? "", HOME: tmpdir() };
  const names: string[] = [];
  for (const [binary, load] of Object.entries(binaries)) {
    const def = await load();
    names.push(binary);
    for (const loadSub of Object.values(def.subcommands ?? {})) names.push((await loadSub()).name);
  }
  const sizes: { command: string; bytes: number }[] = [];
  for (const command of names) {
    const result = await runBinary(env, [...command.split(" "), "--help"]);
    sizes.push({ command, bytes: bytes(result.stdout) });
  }
  return sizes.sort((x, y) => y.bytes - x.bytes);
};
const helps = await helpSizes();

const listing = listingBytes(skillListingLines());
/** The part of a workflow that stays in context whatever the calls return: listing, SKILL.md and helps. */
const fixedPart = (s: ReturnType<typeof summary>): number => s.by_kind.skill_listing + s.by_kind.skill_file + s.by_kind.help;
const comparison = {
  note:
    "A tool schema sits in the context of every session from its first request, used or not; here only the Skills' " +
    "listing lines do, and the SKILL.md and helps enter the context once, when a workflow needs them. " +
    "fixed_bytes = listing + SKILL.md + helps of the workflow (text form).",
  every_session_bytes: listing,
  fixed_bytes: {
    a_mail: fixedPart(workflows.a_mail.text),
    b_herdr_review: fixedPart(workflows.b_herdr_review.text),
  },
  help_share_of_total: {
    a_mail: round(workflows.a_mail.text.by_kind.help / workflows.a_mail.text.total_bytes),
    b_herdr_review: round(workflows.b_herdr_review.text.by_kind.help / workflows.b_herdr_review.text.total_bytes),
  },
};
writeResults("model-bytes", {
  method:
    "bytes that reach the model: the Skills' listing lines, the one SKILL.md opened, each --help read once, each command " +
    "line written and each command's whole output (stdout, then stderr), from the compiled binaries on a fresh SQLite " +
    "state dir (workflow b inside the Herdr double). est_tokens = bytes / 4, an estimate: no tokenizer was run. " +
    "payload_bytes: the message bodies, request and review text themselves, which any system would carry.",
  per_request_bytes: { skill_listing_lines: listing, note: "the only part this project puts in every request" },
  workflows,
  anchors,
  comparison,
  help_budget: { budget_bytes: 8192, commands: helps.length, largest: helps.slice(0, 10) },
});

const kb = (n: number): string => `${round(n / 1000, 1)} KB`;
console.log("workflow                     form  total      ~tokens  listing  SKILL.md  helps     commands  outputs  payload");
for (const [name, w] of Object.entries(workflows)) {
  for (const form of ["text", "json"] as const) {
    const s = w[form];
    console.log(
      [
        name.padEnd(28),
        form.padEnd(5),
        kb(s.total_bytes).padEnd(10),
        String(s.est_tokens).padEnd(8),
        kb(s.by_kind.skill_listing).padEnd(8),
        kb(s.by_kind.skill_file).padEnd(9),
        kb(s.by_kind.help).padEnd(9),
        kb(s.by_kind.command).padEnd(9),
        kb(s.by_kind.output).padEnd(8),
        kb(s.payload_bytes),
      ].join(" "),
    );
  }
}
console.log(`\nin every request: the Skills' listing lines, ${listing} bytes (~${Math.round(listing / 4)} tokens)`);
for (const a of anchors) console.log(`anchor (${a.source}): ${a.system}, ${a.what}: ${kb(a.bytes)}`);
console.log(
  `largest --help of ${helps.length}: ${helps
    .slice(0, 5)
    .map((h) => `${h.command} ${h.bytes} B`)
    .join(", ")}`,
);
console.log(
  `fixed part of a workflow (listing + SKILL.md + helps): (a) ${kb(comparison.fixed_bytes.a_mail)}, ` +
    `(b) ${kb(comparison.fixed_bytes.b_herdr_review)}; helps are ${Math.round(comparison.help_share_of_total.a_mail * 100)}% ` +
    `and ${Math.round(comparison.help_share_of_total.b_herdr_review * 100)}% of the totals`,
);
