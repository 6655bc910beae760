// The family's output budget (docs/cli-contract.md): on a store the size of a team of thousands, every command and
// subcommand in the binary registry, run as a model would first run it (the fewest valid flags), prints at most
// 16 KB on stdout in text and in --json, and where it left something out it says how many and the exact command that
// fetches the next page. The registry is walked, not listed: a new command without a row below fails this test.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { OUTPUT_BUDGET_BYTES } from "../../app/agent_computer/src/cli/kernel/output-budget.ts";
import { runBin } from "../helpers/bin.ts";
import { type HerdrWorld, SHA_A, startHerdrWorld } from "../helpers/herdr-world.ts";
import { type LargeStore, seedLargeStore } from "../helpers/large-store.ts";
import { allCommands } from "../helpers/registry.ts";

type Row = { args: (s: LargeStore) => string[]; herdr?: true } | { skip: string };

const as = (s: LargeStore) => ["--agent-id", s.reader.id, "--token-file", s.reader.tokenFile];
const asPeer = (s: LargeStore) => ["--agent-id", s.peer.id, "--token-file", s.peer.tokenFile];
const WRITE_ONCE = "changes the store so that a second run (the --json form) is refused; its output does not grow with the store";
const NEEDS_LEASE = "needs a lease, receipt or worker that only a Herdr session holds; its output is one object, not a list";

/** The fewest valid flags for each command's first run; reasons for the few that cannot run here. */
const ROWS: Record<string, Row> = {
  "agent-ack-cli": { args: (s) => [...asPeer(s), "--up-to-seq", "1000000"] },
  "agent-channel-cli create": { skip: WRITE_ONCE },
  "agent-channel-cli join": { args: (s) => [...asPeer(s), "--channel", "chan-0001"] },
  "agent-channel-cli leave": { args: (s) => [...asPeer(s), "--channel", "chan-0002"] },
  "agent-channel-cli list": { args: (s) => [...as(s), "--all"] },
  "agent-channel-cli post": { args: (s) => [...as(s), "--channel", "chan-0003", "--body", "hello"] },
  "agent-channel-cli read": { args: (s) => [...as(s), "--channel", s.channel] },
  "agent-checkin-cli": { args: (s) => as(s) },
  "agent-checkout-cli": { args: (s) => as(s) },
  "agent-computer-admin doctor": { args: () => [] },
  "agent-computer-admin backup": { skip: "writes a copy of the store to a file; prints one line" },
  "agent-computer-admin restore": { skip: "replaces a store from a backup; prints one line" },
  "agent-computer-admin export": { skip: "writes the agent's mail to a file (--to); prints one line" },
  "agent-computer-admin prune": { args: () => ["--older-than", "30"] },
  "agent-computer-worker": { skip: "a daemon: it runs until stopped" },
  "agent-contacts-cli show": { args: (s) => as(s) },
  "agent-contacts-cli policy": { args: (s) => [...asPeer(s), "--policy", "open"] },
  "agent-contacts-cli allow": { args: (s) => [...asPeer(s), "--contact", "agent-00001"] },
  "agent-contacts-cli block": { args: (s) => [...asPeer(s), "--contact", "agent-00002"] },
  "agent-contacts-cli forget": { args: (s) => [...asPeer(s), "--contact", "agent-00002"] },
  "agent-identity-cli expand-capabilities": { args: (s) => [...asPeer(s), "--add", "docker"] },
  "agent-identity-cli rotate-token": { skip: WRITE_ONCE },
  "agent-identity-cli revoke-token": { skip: WRITE_ONCE },
  "agent-identity-cli unregister": { skip: WRITE_ONCE },
  "agent-identity-cli show": { args: (s) => as(s) },
  "agent-inbox-cli": { args: (s) => as(s) },
  "agent-reserve-cli reserve": { args: (s) => [...asPeer(s), "--repo", s.repo, "--path", "docs/**", "--reason", "budget"] },
  "agent-reserve-cli renew": { args: (s) => [...as(s), "--repo", s.repo, "--ttl", "3600"] },
  "agent-reserve-cli release": { skip: WRITE_ONCE },
  "agent-reserve-cli list": { args: (s) => ["--repo", s.repo] },
  "agent-reserve-cli check": { args: (s) => ["--repo", s.repo, "--path", "src/module-1/a.ts"] },
  "agent-reserve-cli git-hook install": { skip: "needs a git repository; prints one line" },
  "agent-reserve-cli git-hook run": { skip: "needs a git repository and a hook's stdin" },
  "agent-search-cli": { args: (s) => [...as(s), "--query", "release checklist"] },
  "agent-send-cli": { args: (s) => [...as(s), "--to", "agent-00001", "--body", "hello"] },
  "agent-sent-cli": { args: (s) => as(s) },
  "agent-task-cli post": { args: (s) => [...asPeer(s), "--title", "t", "--body", "b", "--require-cap", "nobody-has-this"] },
  "agent-task-cli list": { args: (s) => as(s) },
  "agent-task-cli accept": { skip: WRITE_ONCE },
  "agent-task-cli complete": { skip: WRITE_ONCE },
  "agent-task-cli reject": { skip: WRITE_ONCE },
  "agent-task-cli cancel": { skip: WRITE_ONCE },
  "agent-thread-cli": { args: (s) => [...as(s), "--thread", s.threadId] },
  "agent-wake-cli": { args: () => [] },
  "agent-webhook-cli add": { skip: "needs a reachable public address for the endpoint" },
  "agent-webhook-cli list": { args: (s) => as(s) },
  "agent-webhook-cli remove": { skip: "needs an endpoint (see add)" },
  "agent-webhook-cli enable": { skip: "needs an endpoint (see add)" },
  "agent-webhook-cli rotate-secret": { skip: "needs an endpoint (see add)" },
  "agent-webhook-cli deliveries": { args: (s) => as(s) },
  "agents-list-cli": { args: () => [] },
  "cancel-automation-job-cli": { skip: WRITE_ONCE },
  "cancel-trigger-cli": { skip: WRITE_ONCE },
  "create-automation-job-cli": { skip: "needs a job directory; prints one job" },
  "create-checkback-cli": { args: (s) => [...as(s), "--in", "45m", "--note", "budget"] },
  "create-cron-schedule-cli": { args: (s) => [...as(s), "--cron", "0 9 * * 1-5", "--label", "budget"] },
  "create-webhook-cli": { args: (s) => [...as(s), "--label", "budget", "--job-id", s.jobId] },
  "herdr-agent-control status": { args: () => [], herdr: true },
  "herdr-agent-control receipts": { args: () => [], herdr: true },
  "herdr-agent-control ask": { skip: NEEDS_LEASE },
  "herdr-agent-control ask-many": { skip: NEEDS_LEASE },
  "herdr-agent-control collect": { skip: NEEDS_LEASE },
  "herdr-agent-control abandon": { skip: NEEDS_LEASE },
  "herdr-inspect-cli status": { args: () => [], herdr: true },
  "herdr-inspect-cli sessions": { args: () => [], herdr: true },
  "herdr-inspect-cli topology": { args: () => [], herdr: true },
  "herdr-inspect-cli read": { skip: "reads one pane's last lines, at most --lines (bounded by its schema)" },
  "herdr-lease-cli controller acquire": {
    args: () => ["--authority-ref", "acme/api#7", "--authority-sha256", SHA_A],
    herdr: true,
  },
  "herdr-lease-cli controller resume": { skip: NEEDS_LEASE },
  "herdr-lease-cli controller renew": { skip: NEEDS_LEASE },
  "herdr-lease-cli controller release": { skip: NEEDS_LEASE },
  "herdr-lease-cli controller takeover": { skip: NEEDS_LEASE },
  "herdr-lease-cli reviewer start": { skip: NEEDS_LEASE },
  "herdr-lease-cli reviewer close": { skip: NEEDS_LEASE },
  "herdr-lease-cli reviewer sweep": { args: () => [], herdr: true },
  "herdr-lease-cli writer start": { skip: NEEDS_LEASE },
  "herdr-lease-cli writer verify": { skip: NEEDS_LEASE },
  "herdr-lease-cli writer release": { skip: NEEDS_LEASE },
  "herdr-lease-cli adopt": { skip: NEEDS_LEASE },
  "herdr-lease-cli adopted close": { skip: NEEDS_LEASE },
  "herdr-lease-cli inventory": { args: () => [], herdr: true },
  "herdr-lease-cli reconcile": { args: () => [], herdr: true },
  "herdr-lease-cli wait-any": { skip: NEEDS_LEASE },
  "herdr-lease-cli bridge-status": { args: () => [] },
  "list-automation-jobs-cli": { args: (s) => as(s) },
  "list-triggers-cli": { args: (s) => as(s) },
  "register-agent-cli": { skip: WRITE_ONCE },
  "run-automation-job-cli": { args: (s) => [...as(s), "--job-id", s.jobId] },
  "show-automation-job-cli": { args: (s) => [...as(s), "--job-id", s.jobId] },
  "worker-env-cli set": { skip: "reads the variables from stdin; prints one line" },
  "worker-env-cli list": { args: (s) => as(s) },
  "worker-env-cli unset": { args: (s) => [...as(s), "--key", "NOT_SET"] },
};

/**
 * Commands not yet paged on their own: the kernel's last resort cuts them (a count of what it cut, no next command).
 * An entry that no longer needs the cut fails the test, so the list only shrinks.
 */
const CUT_BY_THE_KERNEL = new Set<string>([]);

const PAGING_FOOTER = /^(\d+) more not shown: (\S+.*--cursor [A-Za-z0-9_-]+)$/m;
const KERNEL_CUT_TEXT = /more line\(s\) cut at the 16 KB output budget/;

describe("every command's default output stays within the 16 KB budget on a store of 10,000 agents", () => {
  let root: string;
  let store: LargeStore;
  let herdr: HerdrWorld;
  const commands: string[] = [];
  const cutByKernel = new Set<string>();

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "ac-budget-"));
    store = await seedLargeStore(join(root, "home"));
    herdr = await startHerdrWorld({ storeEnv: store.env });
    // The lease-holding commands (reviewer sweep) need a controller; acquiring again then answers CONFLICT.
    await herdr.acquire();
    for (const entry of await allCommands()) commands.push([entry.binary, ...entry.words].join(" "));
  }, 120_000);
  afterAll(async () => {
    await herdr?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
    // makeRepo's checkout lives beside it: <root>/main.
    if (store) rmSync(dirname(store.repo), { recursive: true, force: true });
  });

  test("every registry entry has a row (a new command must say how it runs here)", () => {
    expect(commands.filter((name) => !(name in ROWS))).toEqual([]);
    expect(Object.keys(ROWS).filter((name) => !commands.includes(name))).toEqual([]);
  });

  test("text and --json stay within the budget and say what they left out", async () => {
    const failures: string[] = [];
    const runnable = commands.filter((name) => {
      const row = ROWS[name];
      return row !== undefined && "args" in row;
    });
    expect(runnable.length).toBeGreaterThan(40);
    // Two at a time: the machine has two cores.
    for (let i = 0; i < runnable.length; i += 2) {
      await Promise.all(
        runnable.slice(i, i + 2).map(async (name) => {
          const row = ROWS[name] as Extract<Row, { args: unknown }>;
          const [binary, ...words] = name.split(" ");
          const env = row.herdr ? herdr.env : store.env;
          for (const json of [false, true]) {
            const args = [...words, ...row.args(store), ...(json ? ["--json"] : [])];
            let r = await runBin(binary as string, args, { env });
            // Two commands share one SQLite file here: a write that waited out the lock is retried once (exit 8 is retryable).
            if (r.exitCode === 8) r = await runBin(binary as string, args, { env });
            const label = `${name}${json ? " --json" : ""}`;
            if (r.exitCode !== 0 && r.exitCode !== 4 && r.exitCode !== 5) {
              failures.push(`${label}: exit ${r.exitCode}: ${r.stderr.slice(0, 300)}`);
              continue;
            }
            const bytes = Buffer.byteLength(r.stdout);
            if (bytes > OUTPUT_BUDGET_BYTES) failures.push(`${label}: ${bytes} bytes`);
            const cut = json ? /"output_cut"/.test(r.stdout) : KERNEL_CUT_TEXT.test(r.stdout);
            if (cut) cutByKernel.add(name);
            if (json && r.exitCode === 0 && r.stdout.includes('"next_cursor"')) {
              const doc = JSON.parse(r.stdout) as { next_cursor: string | null; not_shown: number | null };
              if (doc.next_cursor !== null && !(typeof doc.not_shown === "number" && doc.not_shown > 0))
                failures.push(`${label}: a next_cursor without a count of what follows`);
            }
            if (!json && r.stdout.includes("more not shown")) {
              const footer = PAGING_FOOTER.exec(r.stdout);
              if (!footer?.[2]?.startsWith(name.split(" ")[0] as string))
                failures.push(`${label}: a paging line without the next command`);
            }
          }
        }),
      );
    }
    expect(failures).toEqual([]);
    expect([...cutByKernel].sort()).toEqual([...CUT_BY_THE_KERNEL].sort());
  }, 300_000);

  test("the next command a page prints runs as pasted and continues where the page ended", async () => {
    const first = await runBin("agents-list-cli", ["--role", "reviewer"], { env: store.env });
    const footer = PAGING_FOOTER.exec(first.stdout);
    expect(footer?.[2]).toMatch(/^agents-list-cli --role reviewer --cursor /);
    const words = String(footer?.[2]).split(" ");
    const second = await runBin(words[0] as string, words.slice(1), { env: store.env });
    expect(second.exitCode).toBe(0);
    const names = (text: string) => [...text.matchAll(/^● (agent-\d+)/gm)].map((m) => m[1] as string);
    const last = names(first.stdout).at(-1) as string;
    expect((names(second.stdout)[0] as string) > last).toBe(true);
    const left = (text: string) => Number(PAGING_FOOTER.exec(text)?.[1]);
    expect(left(first.stdout)).toBe(left(second.stdout) + names(second.stdout).length);
  });
});
