// Webhooks against a running worker: one run per delivery id however often it is sent; bad signature, stale
// timestamp, oversized body and unknown endpoint rejected with no run; GitHub's profile and ping; the exact
// sender example printed by create-webhook-cli --help; a cancelled endpoint answers 410.
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CURL_EXAMPLE } from "../../app/agent_computer/src/cli/automation/webhook-contract.ts";
import { signGithub, signStandard } from "../../app/agent_computer/src/domain/automation/webhook-verify.ts";
import type { TestAgent } from "../helpers/agents.ts";
import { automationEnv, cli, createJob, type Daemon, jobDir, owner, startDaemon, waitFor } from "../helpers/automation.ts";
import { runBin } from "../helpers/bin.ts";
import { createStoreTarget, type StoreTarget } from "../helpers/stores.ts";

let target: StoreTarget;
let env: Record<string, string>;
let alice: TestAgent;
let worker: Daemon;
let jobId: string;

interface Endpoint {
  id: string;
  url: string;
  secret: string;
}

const endpoint = async (extra: string[] = []): Promise<Endpoint> => {
  const created = await cli<Endpoint>(env, alice, "create-webhook-cli", ["--label", "test sender", ...extra]);
  return { ...created, url: `${worker.url}/hooks/${created.id}` };
};

const runsOf = async (triggerId: string) =>
  Number((await target.sql("SELECT COUNT(*) AS n FROM automation_runs WHERE trigger_id = $1", [triggerId]))[0]?.n);

const postStandard = (
  e: Endpoint,
  body: string | Buffer,
  opts: { id?: string; ts?: number; secret?: string; url?: string } = {},
) => {
  const id = opts.id ?? `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const ts = opts.ts ?? Math.floor(Date.now() / 1000);
  return fetch(opts.url ?? e.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(ts),
      "webhook-signature": signStandard(opts.secret ?? e.secret, id, ts, body),
    },
    body,
  });
};

beforeAll(async () => {
  target = await createStoreTarget("sqlite");
  env = automationEnv(target);
  alice = await owner(env, "alice");
  jobId = await createJob(
    env,
    alice,
    jobDir('import { context } from "agent-computer/automation"; console.log(JSON.stringify(context().event));'),
  );
  worker = await startDaemon(env);
});
afterAll(async () => {
  worker?.process.kill("SIGTERM");
  await worker?.process;
  await target?.dispose();
});

describe("webhook receiver [sqlite]", () => {
  test("create-webhook-cli prints the secret once in whsec_ form; listings never show it", async () => {
    const e = await endpoint(["--automation-job-id", jobId]);
    expect(e.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const listed = await cli<{ triggers: unknown[] }>(env, alice, "list-triggers-cli", ["--all"]);
    const shown = await cli(env, alice, "show-automation-job-cli", ["--id", jobId]);
    expect(JSON.stringify([listed, shown])).not.toContain(e.secret.slice(6, 30));
    expect(worker.stderr()).not.toContain(e.secret.slice(6, 30));
  });

  test("a valid delivery sent three times creates exactly one run, which gets the delivery as its event", async () => {
    const e = await endpoint(["--automation-job-id", jobId]);
    const body = JSON.stringify({ action: "opened", number: 12 });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await postStandard(e, body, { id: "msg_same_delivery_1" }));
    expect(answers.map((a) => a.status)).toEqual([202, 200, 200]);
    const [first, ...repeats] = (await Promise.all(answers.map((a) => a.json()))) as { run_id: string }[];
    expect(first).toMatchObject({
      accepted: true,
      duplicate: false,
      delivery_id: "msg_same_delivery_1",
      run_id: expect.stringMatching(/^run_/),
    });
    for (const r of repeats) expect(r).toMatchObject({ accepted: true, duplicate: true });
    expect(await runsOf(e.id)).toBe(1);
    const stdout = await waitFor(async () => {
      const rows = await target.sql("SELECT state, stdout_tail FROM automation_runs WHERE id = $1", [first?.run_id]);
      return rows[0]?.state === "succeeded" ? String(rows[0].stdout_tail) : undefined;
    });
    expect(JSON.parse(stdout)).toMatchObject({
      specversion: "1.0",
      type: "webhook.delivery",
      id: "msg_same_delivery_1",
      data: { number: 12 },
    });
  });

  test("bad signature, stale timestamp, missing headers, oversized body and unknown endpoint are rejected with no run", async () => {
    const e = await endpoint(["--automation-job-id", jobId, "--max-body-bytes", "1024"]);
    const body = '{"ok":true}';
    const wrongSecret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    expect((await postStandard(e, body, { secret: wrongSecret })).status).toBe(401);
    expect((await postStandard(e, body, { ts: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401);
    expect((await fetch(e.url, { method: "POST", body })).status).toBe(400);
    const big = JSON.stringify({ pad: "x".repeat(2000) });
    const tooLarge = await postStandard(e, big);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: "body_too_large" });
    const unknown = await postStandard(e, body, { url: `${worker.url}/hooks/hook_${"0".repeat(32)}` });
    expect(unknown.status).toBe(404);
    expect(await runsOf(e.id)).toBe(0);
    expect(Number((await target.sql("SELECT COUNT(*) AS n FROM automation_firings WHERE trigger_id = $1", [e.id]))[0]?.n)).toBe(
      0,
    );
  });

  test("signatures cover the raw bytes: a binary body signed over its bytes is accepted, a different one is refused", async () => {
    const e = await endpoint(["--automation-job-id", jobId]);
    // Both bodies are invalid UTF-8 and decode to the same text (U+FFFD), so only a check over bytes tells them apart.
    const signed = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    const other = Buffer.from([0xfe, 0xff, 0x00, 0x80]);
    const id = "msg_binary_body_1";
    const ts = Math.floor(Date.now() / 1000);
    const signature = signStandard(e.secret, id, ts, signed);
    const send = (body: Buffer, deliveryId: string) =>
      fetch(e.url, {
        method: "POST",
        headers: {
          "content-type": "application/octet-stream",
          "webhook-id": deliveryId,
          "webhook-timestamp": String(ts),
          "webhook-signature": signature,
        },
        body,
      });
    expect((await send(signed, id)).status).toBe(202);
    expect((await send(other, "msg_binary_body_2")).status).toBe(401);
    expect(await runsOf(e.id)).toBe(1);
  });

  test("GitHub profile: a binary body is checked over its bytes too", async () => {
    const e = await endpoint(["--automation-job-id", jobId, "--provider", "github"]);
    const signed = Buffer.from([0xff, 0xfe, 0x00, 0x80]);
    const send = (body: Buffer, delivery: string) =>
      fetch(e.url, {
        method: "POST",
        headers: {
          "x-github-event": "push",
          "x-github-delivery": delivery,
          "x-hub-signature-256": signGithub(e.secret, signed),
        },
        body,
      });
    expect((await send(signed, "bin-delivery-1")).status).toBe(202);
    expect((await send(Buffer.from([0xfe, 0xff, 0x00, 0x80]), "bin-delivery-2")).status).toBe(401);
    expect(await runsOf(e.id)).toBe(1);
  });

  test("GitHub profile: ping answered without a run, a signed delivery runs once, a bad signature is refused", async () => {
    const e = await endpoint(["--automation-job-id", jobId, "--provider", "github"]);
    const post = (event: string, delivery: string, body: string, signature = signGithub(e.secret, body)) =>
      fetch(e.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": event,
          "x-github-delivery": delivery,
          "x-hub-signature-256": signature,
        },
        body,
      });
    const ping = await post("ping", "72d3162e-cc78-11e3-81ab-4c9367dc0958", '{"zen":"Keep it logically awesome."}');
    expect(ping.status).toBe(200);
    expect(await ping.json()).toMatchObject({ ping: true });
    const push = await post("push", "9f1b2c3d-0000-11e3-81ab-4c9367dc0958", '{"ref":"refs/heads/main"}');
    expect(push.status).toBe(202);
    expect((await post("push", "9f1b2c3d-0000-11e3-81ab-4c9367dc0958", '{"ref":"refs/heads/main"}')).status).toBe(200);
    expect((await post("push", "aaaa2c3d-0000-11e3-81ab-4c9367dc0958", '{"ref":"x"}', `sha256=${"0".repeat(64)}`)).status).toBe(
      401,
    );
    expect(await runsOf(e.id)).toBe(1);
    const event = JSON.parse(
      String((await target.sql("SELECT event FROM automation_runs WHERE trigger_id = $1", [e.id]))[0]?.event),
    );
    expect(event).toMatchObject({ githubevent: "push", data: { ref: "refs/heads/main" } });
  });

  test("the sender example in create-webhook-cli --help works verbatim; without a job the delivery wakes the owner", async () => {
    const e = await endpoint();
    const script = CURL_EXAMPLE.join("\n")
      .replace("secret='whsec_…'", `secret='${e.secret}'`)
      .replace(/url='[^']*'/, `url='${e.url}'`);
    const r = await execa("bash", ["-c", script], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      accepted: true,
      duplicate: false,
      run_id: null,
      message_id: expect.stringMatching(/^msg_/),
    });
    const inbox = await cli<{ messages: { kind: string; body: string }[] }>(env, alice, "agent-inbox-cli", []);
    const delivered = inbox.messages.map((m) => JSON.parse(m.body)).find((ev) => ev.type === "webhook.delivery");
    expect(delivered).toMatchObject({ source: `/agent-computer/triggers/${e.id}`, data: { action: "opened", number: 12 } });
  });

  test("a cancelled endpoint answers 410 Gone", async () => {
    const e = await endpoint(["--automation-job-id", jobId]);
    await cli(env, alice, "cancel-trigger-cli", ["--id", e.id]);
    expect((await postStandard(e, "{}")).status).toBe(410);
    expect(await runsOf(e.id)).toBe(0);
  });

  test("a second worker on the same port fails with ADDRESS_IN_USE (exit 8)", async () => {
    const port = new URL(worker.url).port;
    const r = await runBin("agent-computer-worker", ["--port", port, "--json"], { env });
    expect(r.exitCode).toBe(8);
    expect(JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "{}")).toMatchObject({ error: { code: "ADDRESS_IN_USE" } });
  });
});
