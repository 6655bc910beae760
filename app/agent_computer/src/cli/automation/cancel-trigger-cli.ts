import * as z from "zod/mini";
import { cancelTrigger } from "../../domain/automation/triggers.ts";
import type { TriggerView } from "../../domain/automation/views.ts";
import { STORE_ERRORS } from "../../errors.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { ownCredential } from "../kernel/credential.ts";
import { OWNER_ENV, OWNER_ERRORS, owner, ownerFields, triggerIdSchema, workerBaseUrl } from "./shared.ts";
import { triggerLine } from "./trigger-render.ts";

export const cancelTriggerOptionsSchema = z.object({
  ...ownerFields,
  triggerId: triggerIdSchema.check(z.describe("the checkback, cron schedule or webhook endpoint")),
});

export type CancelTriggerOptions = z.output<typeof cancelTriggerOptionsSchema>;

const runCancelTrigger = async (options: CancelTriggerOptions, { ctx, ...deps }: DepsOf<"store">): Promise<TriggerView> =>
  cancelTrigger(deps, {
    ...owner(options, deps),
    id: options.triggerId,
    baseUrl: workerBaseUrl(ctx),
  });

export default defineCommand({
  name: "cancel-trigger-cli",
  summary: "cancel a checkback, cron schedule or webhook endpoint so it never fires again",
  description:
    "Cancels a trigger you own. A cancelled checkback or schedule never fires again; a cancelled webhook endpoint answers " +
    "410 Gone (Standard Webhooks senders then stop). Runs it already started are not affected (see " +
    "cancel-automation-job-cli to stop a job). A consumed checkback or an already cancelled trigger gives CONFLICT. " +
    "list-triggers-cli --help lists yours.",
  schema: cancelTriggerOptionsSchema,
  flags: { triggerId: { aliases: ["--id"] } },
  writes: "the trigger's state (cancelled) and end time.",
  output: '{"id","kind","label","automation_job_id","state":"cancelled",…}',
  errors: [...OWNER_ERRORS, "NOT_FOUND", "CONFLICT", ...STORE_ERRORS, "INTERNAL"],
  env: [...OWNER_ENV],
  examples: ["cancel-trigger-cli --agent-id builder-1 --trigger-id cron_0193a1b2c3d4e5f60718293a4b5c6d7e"],
  needs: { deps: "store", credential: ownCredential },
  run: runCancelTrigger,
  render: triggerLine,
});
