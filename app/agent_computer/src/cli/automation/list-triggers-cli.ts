import * as z from "zod/mini";
import { listTriggers } from "../../domain/automation/triggers.ts";
import type { TriggerView } from "../../domain/automation/views.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { OWNER_ENV, OWNER_ERRORS, owner, ownerFields, workerBaseUrl } from "./shared.ts";
import { triggerLine } from "./trigger-render.ts";

export const listTriggersOptionsSchema = z.object({
  ...ownerFields,
  all: z._default(z.boolean(), false).check(z.describe("also list consumed checkbacks and cancelled triggers")),
  limit: z
    ._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(500)), 100)
    .check(z.describe("how many triggers, newest first")),
});

export type ListTriggersOptions = z.output<typeof listTriggersOptionsSchema>;

const runListTriggers = async (
  options: ListTriggersOptions,
  { ctx, ...deps }: DepsOf<"store">,
): Promise<{ triggers: TriggerView[] }> =>
  listTriggers(deps, {
    ...owner(options, deps),
    includeEnded: options.all,
    limit: options.limit,
    baseUrl: workerBaseUrl(ctx),
  });

export default defineCommand({
  name: "list-triggers-cli",
  summary: "list your checkbacks, cron schedules and webhook endpoints, with what each one runs or wakes",
  description:
    "Lists the triggers you own, newest first: checkbacks (due_at), cron schedules (cron, tz, next_fire_at, skipped_count " +
    "of ticks passed over by the misfire policy) and webhook endpoints (provider, url, max_body_bytes). Each shows the " +
    "automation job it runs, or null when it wakes you with an inbox event, and how often it fired. Webhook secrets are " +
    "never shown (they are printed once, by create-webhook-cli). Webhook URLs use AGENT_COMPUTER_WORKER_URL as their base. " +
    "Without --all only active triggers are listed. Cancel one with cancel-trigger-cli --help.",
  schema: listTriggersOptionsSchema,
  writes: "nothing.",
  output:
    '{"triggers":[{"id","kind":"checkback|cron|webhook","label","automation_job_id","state":"active|consumed|cancelled",' +
    '"fire_count","last_fired_at","created_at","ended_at", checkback: "due_at"; cron: "cron","tz","next_fire_at",' +
    '"misfire_window_seconds","skipped_count"; webhook: "provider","url","max_body_bytes"}]}',
  errors: [...OWNER_ERRORS, ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV, "AGENT_COMPUTER_WORKER_URL"],
  examples: ["list-triggers-cli --agent-id builder-1", "list-triggers-cli --agent-id builder-1 --all --json"],
  needs: { deps: "store", credential: ownCredential },
  run: runListTriggers,
  render: (r: { triggers: TriggerView[] }) => [`${r.triggers.length} trigger(s)`, ...r.triggers.map(triggerLine)].join("\n"),
});
