// The contract text of create-webhook-cli --help: the reference example of a contract document.
import { TIMESTAMP_TOLERANCE_SECONDS } from "../../domain/automation/webhook-verify.ts";
import { MAX_JSON_DEPTH } from "../../json-depth.ts";

export const DEFAULT_MAX_BODY_BYTES = 262_144;

/** A complete sender in bash (openssl, curl); tested verbatim by test/e2e/automation-webhooks.test.ts. */
export const CURL_EXAMPLE = [
  "secret='whsec_…'  # printed once by create-webhook-cli",
  "url='http://127.0.0.1:8787/hooks/hook_…'",
  `body='{"action":"opened","number":12}'; id="evt_$(date +%s%N)"; ts=$(date +%s)`,
  `key=$(printf %s "\${secret#whsec_}" | base64 -d | od -An -v -tx1 | tr -d ' \\n')`,
  `sig=$(printf '%s.%s.%s' "$id" "$ts" "$body" \\`,
  `  | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" -binary | base64)`,
  `curl -sS -X POST "$url" -H 'content-type: application/json' \\`,
  `  -H "webhook-id: $id" -H "webhook-timestamp: $ts" -H "webhook-signature: v1,$sig" \\`,
  `  --data-binary "$body"`,
];

export const WEBHOOK_CONTRACT = [
  "Creates a webhook endpoint, served by agent-computer-worker at http://<host>:<port>/hooks/<endpoint-id>, and prints " +
    "its signing secret ONCE, in the Standard Webhooks form whsec_<base64>. Give both to the sender. Each accepted delivery " +
    "starts one run of --automation-job-id, or, without a job, appends the delivery's event to your inbox (kind event).",
  "Trust model: the URL is not a secret; the signature is the only proof that a delivery comes from a holder of the " +
    "secret, and unsigned, wrongly signed, stale or oversized deliveries are rejected with nothing created. The secret is " +
    "kept in the store (HMAC verification needs the key itself; a hash would not do): whoever can read the store (the " +
    "SQLite file, or the PostgreSQL database) can forge deliveries, the same boundary as agent tokens. It never appears " +
    "again in listings, logs or --json; if it leaks, cancel the endpoint (cancel-trigger-cli) and create a new one. The " +
    "worker listens on loopback unless started with --host: a sender on another machine needs a reverse proxy or tunnel.",
  `Signature, --provider standard (Standard Webhooks 1.0): headers webhook-id (the delivery id; the same on every retry), ` +
    "webhook-timestamp (unix seconds) and webhook-signature (v1,<base64 HMAC-SHA256>; several may be space-separated). " +
    "The key is the base64-decoded text after whsec_; the signed content is <webhook-id>.<webhook-timestamp>.<raw body>, " +
    `byte for byte. A timestamp more than ${TIMESTAMP_TOLERANCE_SECONDS} s away from the worker's clock is rejected (replay window).`,
  "Signature, --provider github: paste the whole secret (including whsec_) into the hook's Secret field. The worker " +
    "checks X-Hub-Signature-256 (sha256=<hex HMAC-SHA256 of the raw body>), uses X-GitHub-Delivery as the delivery id " +
    "and answers GitHub's ping event (X-GitHub-Event: ping) with 200 without creating anything. GitHub sends no " +
    "timestamp, so replay protection rests on de-duplication alone. Content type application/json is expected.",
  "De-duplication: each delivery id is accepted once per endpoint, ever; a repeat answers 200 with duplicate:true and " +
    "creates nothing, so a sender may retry freely. Limits: the body may be at most --max-body-bytes (checked against " +
    `Content-Length before reading and again after); a JSON body may nest arrays and objects at most ${MAX_JSON_DEPTH} ` +
    "levels deep; delivery ids are 1-200 characters of A-Z a-z 0-9 _ : -.",
  "Answers: 202 {accepted:true, duplicate:false, delivery_id, run_id | message_id} means durably accepted: the delivery " +
    "and its run (or your inbox event) are committed together; the run itself happens asynchronously. 200: a duplicate, " +
    "or a GitHub ping. 400 missing headers, a bad delivery id or JSON nested too deep (body_too_deep); 401 bad signature or stale timestamp; 404 unknown " +
    "endpoint; 410 the endpoint was cancelled (stop sending); 413 body too large; 503 the store is unavailable or the " +
    "worker is stopping: nothing was accepted, retry later.",
  "Event: the script's context().event (and the inbox event) is a CloudEvents 1.0 envelope: type webhook.delivery, " +
    "id = the delivery id, source /agent-computer/triggers/<endpoint-id>, data = the body parsed as JSON (else the text, " +
    "with the sender's content type as datacontenttype); GitHub deliveries add the extension githubevent (e.g. push).",
  `A complete sender (bash, openssl, curl):\n${CURL_EXAMPLE.map((l) => `  ${l}`).join("\n")}`,
  "Jobs: create-automation-job-cli --help. Endpoints: list-triggers-cli, cancel-trigger-cli.",
].join("\n");
