// The worker's log formats (worker/log.ts, worker/start-line.ts): JSON lines for journals and scripts, plain lines
// for a person; the start line leads with the console link, and carries the token only to a terminal. The flag
// (--log-format) is validated by the zod/mini schema and names itself when refused.
import { describe, expect, test } from "vitest";
import { workerOptionsSchema } from "../../app/agent_computer/src/cli/worker/agent-computer-worker.ts";
import { createLogger, type LogFormat } from "../../app/agent_computer/src/worker/log.ts";
import { announceStart, type StartFacts } from "../../app/agent_computer/src/worker/start-line.ts";

const TOKEN = "t".repeat(43);
const facts = (over: Partial<StartFacts> = {}): StartFacts => ({
  workerId: "wrk_1",
  url: "http://127.0.0.1:8787",
  consoleToken: TOKEN,
  stderrIsTerminal: true,
  store: "postgres",
  clockOffsetMs: -42,
  once: false,
  concurrency: 4,
  skillsDir: "/opt/skills",
  ...over,
});
const capture = (format: LogFormat) => {
  const lines: string[] = [];
  return { log: createLogger((line) => lines.push(line), "worker", format), text: () => lines.join("") };
};

describe("the worker's start line", () => {
  test("as text on a terminal: the console link first, then what it serves, its store clock and how to stop it", () => {
    const out = capture("text");
    announceStart(out.log, facts());
    const lines = out.text().split("\n");
    expect(lines[0]).toBe(`Console: http://127.0.0.1:8787/?token=${TOKEN}`);
    expect(out.text()).toContain("serves http://127.0.0.1:8787: webhooks (POST /hooks/<endpoint-id>)");
    expect(out.text()).toContain("this host's is 42 ms ahead");
    expect(out.text()).toContain("Stop: Ctrl-C");
    expect(out.text()).not.toContain("{");
  });

  test("as text to a file: the command that prints the link, never the token", () => {
    const out = capture("text");
    announceStart(out.log, facts({ stderrIsTerminal: false, store: "sqlite", clockOffsetMs: null }));
    expect(out.text().split("\n")[0]).toBe("Console: http://127.0.0.1:8787/ (sign-in link: agent-computer-worker --console-url)");
    expect(out.text()).not.toContain(TOKEN);
    expect(out.text()).not.toContain("clock");
  });

  test("as JSON: one object with every fact, the clock offset only on PostgreSQL", () => {
    const out = capture("json");
    announceStart(out.log, facts());
    const entries = out
      .text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(entries).toEqual([
      expect.objectContaining({
        msg: "worker started",
        worker_id: "wrk_1",
        console_url: "http://127.0.0.1:8787/",
        console_link: `http://127.0.0.1:8787/?token=${TOKEN}`,
        store: "postgres",
        clock_offset_ms: -42,
        mode: "daemon",
      }),
    ]);
  });
});

describe("log lines", () => {
  test("text: time, level, service, message, then the fields as JSON; terminal controls made visible", () => {
    const out = capture("text");
    out.log.child("scheduler").log("warn", "scan failed\x1b[2J", { error: "boom\n\x1b[31mred" });
    expect(out.text()).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} warn {2}scheduler: scan failed\\x1b\[2J \{"error":"boom\\n\\u001b\[31mred"\}\n$/,
    );
  });

  test("json: one object per line, as before", () => {
    const out = capture("json");
    out.log.log("info", "triggers fired", { fired: 2 });
    expect(JSON.parse(out.text())).toMatchObject({ level: "info", service: "worker", msg: "triggers fired", fired: 2 });
  });
});

describe("--log-format", () => {
  test("takes text or json, and none leaves the choice to the terminal", () => {
    expect(workerOptionsSchema.parse({ logFormat: "text" }).logFormat).toBe("text");
    expect(workerOptionsSchema.parse({ logFormat: "json" }).logFormat).toBe("json");
    expect(workerOptionsSchema.parse({}).logFormat).toBeUndefined();
  });

  test("refuses anything else, naming the flag", () => {
    const parsed = workerOptionsSchema.safeParse({ logFormat: "yaml" });
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["logFormat"]);
  });

  test("the webhook backoff still parses into milliseconds and refuses a bad step (zod/mini)", () => {
    expect(workerOptionsSchema.parse({}).webhookBackoff).toEqual([
      5000, 30_000, 120_000, 600_000, 1_800_000, 7_200_000, 21_600_000,
    ]);
    expect(workerOptionsSchema.parse({ webhookBackoff: "500ms, 1h" }).webhookBackoff).toEqual([500, 3_600_000]);
    for (const bad of ["5x", "8d", ""]) {
      const parsed = workerOptionsSchema.safeParse({ webhookBackoff: bad });
      expect(
        parsed.error?.issues.map((issue) => issue.path.join(".")),
        bad,
      ).toEqual(["webhookBackoff"]);
    }
  });
});
