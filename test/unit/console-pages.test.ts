// Console pages rendered from hostile data: every string a user, a script or an agent controls comes out as
// text. Plus the pieces around them: the Host guard, secret redaction, bounded tails.
import { describe, expect, test } from "vitest";
import { agentsPage } from "../../app/agent_computer/src/console/agents-page.ts";
import { lastChars } from "../../app/agent_computer/src/console/format.ts";
import { hostAllowed } from "../../app/agent_computer/src/console/host-guard.ts";
import { jobsPage, TAIL_CHARS } from "../../app/agent_computer/src/console/jobs-page.ts";
import { layout } from "../../app/agent_computer/src/console/layout.ts";
import { webhooksPage } from "../../app/agent_computer/src/console/outbound-webhooks-page.ts";
import { triggersPage } from "../../app/agent_computer/src/console/triggers-page.ts";
import { redactSecrets } from "../../app/agent_computer/src/domain/automation/overview.ts";
import { parseCommandLine } from "../helpers/parse-line.ts";

const EVIL = `<x-evil a="1">'&`;
const ESCAPED = "&lt;x-evil a=&quot;1&quot;&gt;&#39;&amp;";
const T = "2026-05-01T12:00:03.000Z";

const run = {
  id: `run_${EVIL}`,
  automation_job_id: `job_${EVIL}`,
  state: EVIL,
  attempt: 2,
  trigger_kind: EVIL,
  trigger_id: EVIL,
  error_kind: EVIL,
  error: EVIL,
  exit_code: null,
  signal: EVIL,
  emitted_count: 0,
  created_at: T,
  started_at: T,
  finished_at: T,
  duration_ms: 1500,
  stdout_tail: EVIL,
  stderr_tail: EVIL,
};
const job = {
  id: `job_${EVIL}`,
  owner: EVIL,
  label: EVIL,
  dir: EVIL,
  wake_on_failure: false,
  timeout_seconds: 60,
  state: EVIL,
  created_at: T,
  cancelled_at: null,
};
const trigger = (kind: string) => ({
  id: `trg_${EVIL}`,
  kind,
  owner: EVIL,
  label: EVIL,
  automation_job_id: EVIL,
  state: EVIL,
  fire_count: 1,
  last_fired_at: T,
  created_at: T,
  ended_at: null,
  due_at: T,
  cron: EVIL,
  tz: EVIL,
  next_fire_at: T,
  skipped_count: 3,
  provider: EVIL,
  url: `http://127.0.0.1:1/hooks/${EVIL}`,
});
const agent = {
  agent_id: EVIL,
  class: EVIL,
  alive: true,
  liveness_evidence: "age" as const,
  host: EVIL,
  role: EVIL,
  repo: EVIL,
  caps: [EVIL],
  status: EVIL,
  status_age_s: 42,
  last_activity_at: T,
  expires_at: T,
  session_id: EVIL,
};

const endpoint = {
  id: `whk_${EVIL}`,
  owner: EVIL,
  url: `https://example.com/${EVIL}`,
  events: ["message" as const],
  state: "disabled" as const,
  disabled_reason: EVIL,
  allow_private: false,
  failed_streak: 5,
  events_by_state: { pending: 1, delivered: 2, failed: 3 },
  created_at: T,
  updated_at: T,
};
const attempt = {
  event_id: `whevt_${EVIL}`,
  endpoint_id: `whk_${EVIL}`,
  type: EVIL,
  attempt: 1,
  worker_id: EVIL,
  started_at: T,
  duration_ms: 12,
  status_code: 500,
  error_kind: EVIL,
  outcome: EVIL,
};

const rendered = [
  layout(jobsPage([{ job, runs: [run] }], { jobs: 50, runsPerJob: 5 }), "/", new Date(T)).text,
  layout(triggersPage(["checkback", "cron", "webhook"].map(trigger), 200), "/triggers", new Date(T)).text,
  layout(
    agentsPage(
      {
        agents: [agent],
        totals: { live: 1, stale: 0 },
        hosts: [{ host: agent.host, live: 1, stale: 0 }],
        following: 0,
        next_cursor: null,
        note: EVIL,
      },
      200,
      true,
    ),
    "/agents",
    new Date(T),
  ).text,
  layout(
    webhooksPage({ endpoints: [endpoint], attempts: [attempt] }, { endpoints: 100, attempts: 100 }),
    "/webhooks",
    new Date(T),
  ).text,
];

describe("console pages", () => {
  test.each(rendered.map((page, i) => [["jobs", "triggers", "agents", "webhooks"][i], page]))(
    "the %s page renders every hostile value escaped, never as markup",
    (_name, page) => {
      expect(page).not.toContain("<x-evil");
      expect(page).toContain(ESCAPED);
      expect(page.match(/<script\b/g)).toEqual(["<script"]);
      expect(page).toContain('<script type="module" src="/console/live-refresh.js"></script>');
      expect(page).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    },
  );

  test("the agents page shows the status age in words and in seconds", () => {
    expect(rendered[2]).toContain('<span title="42 seconds">42 s ago</span>');
  });

  test("a tail longer than the page shows keeps its end and says how much was left out", () => {
    const long = `${"a".repeat(TAIL_CHARS)}THE END`;
    expect(lastChars(long, TAIL_CHARS)).toBe(`[… 7 earlier characters not shown]\n${long.slice(7)}`);
    expect(lastChars("short", TAIL_CHARS)).toBe("short");
  });
});

describe("the console's Host guard", () => {
  test.each([
    ["127.0.0.1", "127.0.0.1:8787", true],
    ["127.0.0.1", "localhost:8787", true],
    ["127.0.0.1", "LOCALHOST", true],
    ["127.0.0.1", "[::1]:8787", true],
    ["127.0.0.1", "evil.example:8787", false],
    ["127.0.0.1", "127.0.0.1.evil.example", false],
    ["127.0.0.1", null, false],
    ["::1", "[::1]:8787", true],
    ["::1", "attacker.test", false],
    ["0.0.0.0", "build-host.lan:8787", true],
    ["10.0.0.5", "10.0.0.5:8787", true],
  ])("bound to %s, Host %s is allowed: %s", (bound, host, allowed) => {
    expect(hostAllowed(bound, host)).toBe(allowed);
  });
});

describe("WorkerEnv redaction", () => {
  const env = [
    { key: "TOKEN", value: "abcdefgh12345678", updatedAt: 0 },
    { key: "TOKEN_PREFIX", value: "abcdefgh", updatedAt: 0 },
    { key: "SHORT", value: "eu", updatedAt: 0 },
  ];

  test("every occurrence of a value is replaced by its key, the longest value first", () => {
    expect(redactSecrets("t=abcdefgh12345678 p=abcdefgh again abcdefgh12345678", env)).toBe(
      "t=[WorkerEnv TOKEN] p=[WorkerEnv TOKEN_PREFIX] again [WorkerEnv TOKEN]",
    );
  });

  test("values shorter than 8 characters are left alone (they occur by chance); null stays null", () => {
    expect(redactSecrets("region eu", env)).toBe("region eu");
    expect(redactSecrets(null, env)).toBeNull();
  });
});

describe("what the jobs page gives a person to paste", () => {
  test("each run shows its show-automation-job-cli line with the owner, job and run ids, and it parses", async () => {
    const ids = { job: `job_${"a".repeat(32)}`, run: `run_${"b".repeat(32)}` };
    const page = jobsPage([{ job: { ...job, id: ids.job, owner: "builder-1" }, runs: [{ ...run, id: ids.run }] }], {
      jobs: 50,
      runsPerJob: 5,
    }).body.text;
    const line = page.match(/data-field="inspect">All of this run: <code>([^<]+)<\/code>/)?.[1] ?? "";
    expect(line).toBe(`show-automation-job-cli --agent-id builder-1 --job-id ${ids.job} --run-id ${ids.run}`);
    await expect(parseCommandLine(line)).resolves.toMatchObject({
      command: "show-automation-job-cli",
      options: { agentId: "builder-1", jobId: ids.job, runId: ids.run },
    });
    expect(page).not.toContain("&lt;job&gt;");
  });
});
