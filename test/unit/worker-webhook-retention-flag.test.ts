// --webhook-retention-days: how long the worker keeps ended outbound webhook events. Whole days, 1..3650, default 7.
import { describe, expect, test } from "vitest";
import { workerOptionsSchema } from "../../app/agent_computer/src/cli/worker/agent-computer-worker.ts";
import { DEFAULT_WEBHOOK_RETENTION_DAYS } from "../../app/agent_computer/src/domain/outbound-webhooks/retention.ts";

describe("agent-computer-worker --webhook-retention-days", () => {
  test("defaults to 7 days and takes a whole number of days", () => {
    expect(DEFAULT_WEBHOOK_RETENTION_DAYS).toBe(7);
    expect(workerOptionsSchema.parse({}).webhookRetentionDays).toBe(7);
    expect(workerOptionsSchema.parse({ webhookRetentionDays: "30" }).webhookRetentionDays).toBe(30);
  });

  test.each(["0", "1.5", "3651", "week"])("refuses %s, naming the flag", (value) => {
    const parsed = workerOptionsSchema.safeParse({ webhookRetentionDays: value });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join("."))).toEqual(["webhookRetentionDays"]);
  });
});
