// A SQLite store the size of a team of thousands: 10,000 agents checked in on 100 hosts, 1,000 channels, 100,000
// messages, 1,000 jobs with runs, and a reader whose own lists (inbox, sent, channels, contacts, jobs, triggers, tasks,
// reservations) are each long. A few rows of each kind are made by the real binaries (so every column holds what the
// code writes); the rest are copies of those rows made by bulk SQL, a few seconds instead of hours of CLI calls.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkInAgent, type TestAgent } from "./agents.ts";
import { runBin } from "./bin.ts";
import { makeRepo } from "./git-repos.ts";

export const SEEDED = { agents: 10_000, hosts: 100, channels: 1_000, messages: 100_000, jobs: 1_000 } as const;

/** What the default invocations need: the reader's token file and the ids of rows it owns. */
export interface LargeStore {
  env: Record<string, string>;
  reader: TestAgent;
  peer: TestAgent;
  jobId: string;
  triggerId: string;
  taskId: string;
  messageId: string;
  threadId: string;
  channel: string;
  /** A git checkout the reservations are made in (pass it as --repo). */
  repo: string;
}

const run = async (env: Record<string, string>, name: string, args: string[]) => {
  const r = await runBin(name, [...args, "--json"], { env });
  if (r.exitCode !== 0) throw new Error(`${name} ${args.join(" ")} failed: ${r.stderr}`);
  return r.json<Record<string, unknown>>();
};

/** `count` copies of the rows `where` selects, each column as the template has it unless `set` gives an expression of i. */
const copies = (
  db: import("bun:sqlite").Database,
  table: string,
  where: string,
  count: number,
  set: Record<string, string>,
): void => {
  const columns = (db.query(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  const values = columns.map((c) => set[c] ?? `t.${c}`).join(", ");
  db.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
     INSERT INTO ${table} (${columns.join(", ")}) SELECT ${values} FROM n, (SELECT * FROM ${table} WHERE ${where}) t`,
  );
};

const AGENT = "printf('agent-%05d', i)";
/** 4 KiB of text: a run's output tail as long as it gets. */
const TAIL = "substr(hex(zeroblob(2048)), 1, 4096)";

export const seedLargeStore = async (home: string): Promise<LargeStore> => {
  const env = { AGENT_COMPUTER_HOME: home };
  const reader = await checkInAgent(env, home, "reader", ["--role", "builder", "--capabilities", "ts"]);
  const peer = await checkInAgent(env, home, "peer");
  const as = (agent: TestAgent) => ["--agent-id", agent.id, "--token-file", agent.tokenFile];
  const channel = "chan-template";
  await run(env, "agent-channel-cli", ["create", ...as(reader), "--channel", channel]);
  const sent = await run(env, "agent-send-cli", [...as(peer), "--to", "reader", "--body", "template", "--thread", "seeded"]);
  await run(env, "agent-send-cli", [...as(reader), "--to", "peer", "--body", "sent template"]);
  await run(env, "agent-contacts-cli", ["allow", ...as(reader), "--contact", "peer"]);
  const jobDir = join(home, "job");
  mkdirSync(jobDir);
  writeFileSync(join(jobDir, "main.ts"), 'console.log("ok");\n');
  const jobId = String((await run(env, "create-automation-job-cli", [...as(reader), "--dir", jobDir, "--label", "digest"])).id);
  await run(env, "run-automation-job-cli", [...as(reader), "--job-id", jobId]);
  const trigger = await run(env, "create-checkback-cli", [...as(reader), "--in", "45m", "--note", "is CI green?"]);
  const task = await run(env, "agent-task-cli", [
    "post",
    ...as(reader),
    "--title",
    "review",
    "--body",
    "see thread",
    "--require-cap",
    "ts",
  ]);
  const repo = await makeRepo();
  await run(env, "agent-reserve-cli", [
    "reserve",
    ...as(reader),
    "--repo",
    repo,
    "--path",
    "src/template/**",
    "--reason",
    "seed",
  ]);

  const { Database } = await import("bun:sqlite");
  const db = new Database(join(home, "agent-computer.sqlite"));
  try {
    db.run("PRAGMA busy_timeout = 5000");
    db.transaction(() => {
      copies(db, "agents", "name = 'peer'", SEEDED.agents, { name: AGENT, name_key: AGENT });
      copies(db, "sessions", "agent_name = 'peer' AND ended_at IS NULL", SEEDED.agents, {
        id: "'ses_seed_' || i",
        agent_name: AGENT,
        host: `printf('host-%02d', i % ${SEEDED.hosts})`,
        role: "CASE i % 3 WHEN 0 THEN 'builder' WHEN 1 THEN 'reviewer' ELSE 'release' END",
        repo: "printf('acme/repo-%d', i % 20)",
        caps: `'["ts","sql"]'`,
        status_line: "'working through item ' || i || ' of the release checklist'",
      });
      // The reader belongs to every channel; each channel has ten other members.
      copies(db, "channels", `name = '${channel}'`, SEEDED.channels, { name: "printf('chan-%04d', i)" });
      copies(db, "channel_members", `channel = '${channel}'`, SEEDED.channels, { channel: "printf('chan-%04d', i)" });
      copies(db, "channel_members", `channel = '${channel}'`, SEEDED.channels * 10, {
        channel: "printf('chan-%04d', (i - 1) / 10 + 1)",
        agent_name: AGENT,
      });
      const messageId = String(sent.id);
      // 100,000 messages to the reader, all pending, in 100 threads; the template channel holds 1,000 posts.
      copies(db, "messages", `id = '${messageId}'`, SEEDED.messages, {
        id: "'msg_seed_' || i",
        sender: `printf('agent-%05d', i % ${SEEDED.agents} + 1)`,
        body: "'seeded message ' || i || ' about the release checklist and its rollback plan'",
        thread_id: "'seeded-' || (i % 100)",
        channel: `CASE WHEN i % 100 = 0 THEN '${channel}' ELSE NULL END`,
        idempotency_key: "NULL",
        created_at: "t.created_at + i",
      });
      copies(db, "deliveries", `message_id = '${messageId}'`, SEEDED.messages, {
        message_id: "'msg_seed_' || i",
        seq: "t.seq + i",
      });
      // Forty long messages (54 KB each) that rank first for "release checklist": search shows excerpts of them.
      copies(db, "messages", `id = '${messageId}'`, 40, {
        id: "'msg_long_' || i",
        body: "replace(hex(zeroblob(3000)), '00', 'release checklist ')",
        thread_id: "'seeded-long'",
        idempotency_key: "NULL",
        created_at: "t.created_at + i",
      });
      copies(db, "deliveries", `message_id = '${messageId}'`, 40, {
        message_id: "'msg_long_' || i",
        seq: `t.seq + ${SEEDED.messages} + i`,
      });
      db.run(`UPDATE agents SET last_seq = last_seq + ${SEEDED.messages + 40} WHERE name = 'reader'`);
      // Ten messages the reader sent to 1,000 agents each.
      copies(db, "messages", "sender = 'reader'", 10, { id: "'msg_sent_' || i", created_at: "t.created_at + i" });
      copies(
        db,
        "deliveries",
        "message_id IN (SELECT id FROM messages WHERE sender = 'reader' AND id NOT LIKE 'msg_sent_%')",
        10_000,
        {
          message_id: "'msg_sent_' || ((i - 1) / 1000 + 1)",
          recipient: AGENT,
          session_id: "'ses_seed_' || i",
          seq: "1",
        },
      );
      // The peer has 10,000 messages waiting too (an --up-to-seq acknowledges them all at once).
      copies(db, "deliveries", "recipient = 'peer'", 10_000, {
        message_id: "'msg_seed_' || i",
        seq: "t.seq + i",
      });
      db.run("UPDATE agents SET last_seq = last_seq + 10000 WHERE name = 'peer'");
      copies(db, "contacts", "owner = 'reader'", 2_000, { other: AGENT });
      copies(db, "automation_jobs", `id = '${jobId}'`, SEEDED.jobs - 1, {
        id: "'job_' || printf('%032d', i)",
        label: "'seeded job ' || i",
      });
      copies(db, "automation_runs", `job_id = '${jobId}'`, SEEDED.jobs * 3, {
        id: "'run_' || printf('%032d', i)",
        job_id: "CASE WHEN i <= 300 THEN t.job_id ELSE 'job_' || printf('%032d', (i - 1) / 3 % 999 + 1) END",
        stdout_tail: TAIL,
        stderr_tail: TAIL,
        trigger_id: "NULL",
        fire_key: "NULL",
      });
      copies(db, "automation_triggers", `id = '${String(trigger.id)}'`, SEEDED.jobs, {
        id: "'chk_' || printf('%032d', i)",
        label: "'seeded checkback ' || i || ': is the release branch green and the changelog written?'",
      });
      copies(db, "tasks", `id = '${String(task.id)}'`, 1_000, { id: "'task_' || printf('%032d', i)" });
      copies(db, "file_reservations", "holder = 'reader'", 1_000, {
        id: "'res_' || printf('%032d', i)",
        patterns: `'["src/module-' || i || '/**"]'`,
      });
    })();
    db.run("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  return {
    env,
    reader,
    peer,
    jobId,
    triggerId: String(trigger.id),
    taskId: String(task.id),
    messageId: String(sent.id),
    threadId: "seeded-1",
    channel,
    repo,
  };
};
