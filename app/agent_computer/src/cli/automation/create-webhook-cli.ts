import * as z from "zod/mini";
import { createWebhook } from "../../domain/automation/triggers.ts";
import type { TriggerView } from "../../domain/automation/views.ts";
import { MAX_WEBHOOK_BODY_BYTES } from "../../domain/automation/webhook-accept.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { jobIdSchema, labelSchema, OWNER_ENV, OWNER_ERRORS, owner, ownerFields, workerBaseUrl } from "./shared.ts";
import { triggerLine } from "./trigger-render.ts";
import { DEFAULT_MAX_BODY_BYTES, WEBHOOK_CONTRACT } from "./webhook-contract.ts";

export const webhookOptionsSchema = z.object({
  ...ownerFields,
  label: labelSchema.check(z.describe("what sends to this endpoint, one line (e.g. 'GitHub acme/api pushes')")),
  jobId: z
    .optional(jobIdSchema)
    .check(z.describe("run this job for every accepted delivery; without it each delivery wakes you (inbox)")),
  provider: z
    ._default(z.enum(["standard", "github"]), "standard")
    .check(z.describe("signature scheme: Standard Webhooks, or GitHub's X-Hub-Signature-256")),
  maxBodyBytes: z
    ._default(z.coerce.number().check(z.int(), z.minimum(1024), z.maximum(MAX_WEBHOOK_BODY_BYTES)), DEFAULT_MAX_BODY_BYTES)
    .check(z.describe("largest body accepted, in bytes; larger deliveries get 413 and create nothing")),
});

export type WebhookOptions = z.output<typeof webhookOptionsSchema>;
type WebhookResult = TriggerView & { secret: string; secret_note: string };

const runWebhook = async (options: WebhookOptions, { ctx, ...deps }: DepsOf<"store">): Promise<WebhookResult> => {
  const created = await createWebhook(deps, {
    ...owner(options, deps),
    label: options.label,
    provider: options.provider,
    maxBodyBytes: options.maxBodyBytes,
    jobId: options.jobId,
    baseUrl: workerBaseUrl(ctx),
  });
  return {
    ...created,
    secret_note: "shown once; it cannot be printed again (cancel the endpoint and create a new one if it is lost)",
  };
};

const render = (r: WebhookResult): string =>
  [triggerLine(r), `  endpoint: ${r.url}`, `  secret (shown once): ${r.secret}`, `  ${r.secret_note}`].join("\n");

export default defineCommand({
  name: "create-webhook-cli",
  summary: "a signed webhook endpoint: each verified delivery runs an automation job or wakes you with an event",
  description: WEBHOOK_CONTRACT,
  schema: webhookOptionsSchema,
  flags: { jobId: { aliases: ["--automation-job-id"] } },
  writes: "one webhook endpoint (label, provider, size limit, optional job) and its signing secret.",
  output:
    '{"id":"hook_…","kind":"webhook","label","automation_job_id","state":"active","provider","url","max_body_bytes",' +
    '"fire_count":0,"last_fired_at":null,"created_at","ended_at":null,"secret":"whsec_…"(only here),"secret_note"}',
  errors: [...OWNER_ERRORS, "NOT_FOUND", "CONFLICT", ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV, "AGENT_COMPUTER_WORKER_URL"],
  examples: [
    "create-webhook-cli --agent-id builder-1 --label 'deploy notifications' --job-id job_0193a1b2c3d4e5f60718293a4b5c6d7e",
    "create-webhook-cli --agent-id builder-1 --label 'GitHub acme/api' --provider github --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runWebhook,
  render,
});
