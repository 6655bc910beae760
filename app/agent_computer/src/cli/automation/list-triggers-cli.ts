import * as z from "zod/mini";
import { listTriggers } from "../../domain/automation/triggers.ts";
import type { TriggerView } from "../../domain/automation/views.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { cursorSchema, decodeCursor, encodeCursor, fitPage, limitSchema, type Paged } from "../kernel/paging.ts";
import { OWNER_ENV, OWNER_ERRORS, owner, ownerFields, workerBaseUrl } from "./shared.ts";
import { triggerLine } from "./trigger-render.ts";

export const listTriggersOptionsSchema = z.object({
  ...ownerFields,
  all: z._default(z.boolean(), false).check(z.describe("also list consumed checkbacks and cancelled triggers")),
  limit: limitSchema(50, 500, "triggers, newest first,"),
  cursor: cursorSchema,
});

const NAME = "list-triggers-cli";
type TriggersPage = { triggers: TriggerView[] } & Paged;

export type ListTriggersOptions = z.output<typeof listTriggersOptionsSchema>;

const runListTriggers = async (options: ListTriggersOptions, { ctx, ...deps }: DepsOf<"store">): Promise<TriggersPage> => {
  const query = { agentId: options.agentId, all: options.all };
  const at = options.cursor ? decodeCursor(NAME, query, options.cursor, ["number", "string"]) : undefined;
  const before = at ? { createdAt: at[0] as number, id: at[1] as string } : undefined;
  const r = await listTriggers(deps, {
    ...owner(options, deps),
    includeEnded: options.all,
    limit: options.limit,
    baseUrl: workerBaseUrl(ctx),
    before,
  });
  return fitPage(r.triggers, (shown) => {
    const cut = r.triggers.length - shown.length;
    const last = shown.at(-1);
    const more = cut > 0 || r.older_triggers > 0;
    return {
      triggers: [...shown],
      next_cursor: more && last ? encodeCursor(NAME, query, [Date.parse(last.created_at), last.id]) : null,
      not_shown: r.older_triggers + cut,
    };
  });
};

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
    '"misfire_window_seconds","skipped_count"; webhook: "provider","url","max_body_bytes"}],"next_cursor","not_shown"}',
  errors: [...OWNER_ERRORS, ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV, "AGENT_COMPUTER_WORKER_URL"],
  examples: ["list-triggers-cli --agent-id builder-1", "list-triggers-cli --agent-id builder-1 --all --json"],
  needs: { deps: "store", credential: ownCredential },
  run: runListTriggers,
  render: (r: TriggersPage) => [`${r.triggers.length} trigger(s)`, ...r.triggers.map(triggerLine)].join("\n"),
});
