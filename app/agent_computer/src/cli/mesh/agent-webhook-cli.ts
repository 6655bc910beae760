import type { BinaryDef } from "../kernel/command.ts";

/** Outbound webhooks: URLs that hear of an agent's own events. */
const binary: BinaryDef = {
  name: "agent-webhook-cli",
  summary:
    "outbound webhooks: a URL of yours is POSTed when a message reaches your inbox, a task is assigned to you or a run of your job fails",
  description:
    "An endpoint belongs to --agent-id and hears only of that agent's events: message (any message delivered to its " +
    "inbox, notices from agent-computer included; kind says which), task (a task assigned to it) and run_failed (a " +
    "run of an automation job it owns ended failed). Each event is recorded in the same transaction as its cause, " +
    "once per endpoint that receives its kind: a send refused by your contact policy delivers nothing and posts " +
    "nothing. The running agent-computer-worker POSTs it as JSON {type, timestamp, data} signed the Standard Webhooks " +
    "way: webhook-id (the event id, the same on every retry: de-duplicate on it), webhook-timestamp (Unix seconds) " +
    "and webhook-signature (v1,<base64 HMAC-SHA256 of id.timestamp.body>, key = base64 after whsec_); any " +
    "Standard Webhooks library verifies it. Payloads carry ids, names, seq, thread and channel, never a message " +
    "body, task text or script output: read those with agent-inbox-cli, agent-task-cli, show-automation-job-cli.\n" +
    "Delivery: a 2xx answer delivers; anything else (other status, redirect, timeout, refused connection) is retried " +
    "with exponential backoff and jitter (by default after 5s, 30s, 2m, 10m, 30m, 2h, 6h: see agent-computer-worker " +
    "--help, --webhook-backoff). Every attempt is recorded (time, worker, duration, status code or error kind; never " +
    "the response body): agent-webhook-cli deliveries. Each attempt is claimed under a lease, so workers sharing a " +
    "store never send one attempt twice; a worker that dies mid-attempt loses its claim and another sends the event " +
    "again with the same webhook-id (at least once, never lost). Fair: an endpoint is sent one attempt at a time " +
    "(oldest due first), and a worker holds at most 2 of its 8 attempts in flight for one agent's endpoints, so one " +
    "agent's slow or dead receivers delay no other agent's events. After 5 events in a row failed every attempt " +
    "(--webhook-disable-after) the endpoint is disabled and you get a notice in your inbox from agent-computer; " +
    "nothing is recorded for it while disabled, events already pending are kept, and enable sends them.\n" +
    "Trust: the secret is shown once by add. The worker must sign with it, so it is stored as is in the state store, " +
    "readable by the Unix user that owns it (SQLite) or the database role (PostgreSQL), and never printed again or " +
    "logged (rotate-secret replaces it, with a day's overlap). Lists show the URL without its query string.",
  subcommands: {
    add: () => import("./webhook-add.ts").then((m) => m.default),
    list: () => import("./webhook-list.ts").then((m) => m.default),
    remove: () => import("./webhook-remove.ts").then((m) => m.default),
    enable: () => import("./webhook-enable.ts").then((m) => m.default),
    "rotate-secret": () => import("./webhook-rotate-secret.ts").then((m) => m.default),
    deliveries: () => import("./webhook-deliveries.ts").then((m) => m.default),
  },
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"],
  examples: [
    "agent-webhook-cli add --agent-id builder-1 --url https://hooks.example.com/agent --events message,task",
    "agent-webhook-cli list --agent-id builder-1 --json",
    "agent-webhook-cli deliveries --agent-id builder-1 --limit 20",
  ],
};

export default binary;
