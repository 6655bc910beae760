// Who may reach whom is one rule (domain/mesh/reach.ts), and every path into another agent's inbox or webhooks uses
// it: only reach.ts asks the store which recipients refuse a sender, and every domain file that delivers a message,
// a mesh notice, a webhook event or a task assignment imports reach.ts, or is listed below with the reason it
// carries no other agent's text or act.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, test } from "vitest";

const DOMAIN = resolve(import.meta.dirname, "../../app/agent_computer/src/domain");

/** The calls that put something in an agent's inbox or outbox. */
const DELIVERING = /\b(deliverTo|storeAndDeliverTo|deliverSystemMessage|enqueueWebhookEvent|assignTask)\(/;

/** Delivering files that need not apply the rule themselves, each with why. */
const EXEMPT: Record<string, string> = {
  "mesh/reach.ts": "the rule itself",
  "mesh/deliver.ts": "the one place a delivery is written; its callers apply the rule first",
  "mesh/notify.ts": "the mesh's own notices; callers that quote an agent apply the rule first",
  "mesh/webhook-events.ts": "the one place an event is enqueued; its callers apply the rule first",
  "mesh/expiry.ts": "bounces: a sender's own mail reported back to it, with no text of the other agent",
  "tasks/post.ts": "assigns only pickAssignee's choice (route.ts), which applies the rule",
  "automation/fire.ts": "a job owner's own trigger firing",
  "automation/attempts.ts": "a job owner's own run results",
  "outbound-webhooks/delivery.ts": "an endpoint owner's own endpoint health",
};

const domainFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return domainFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });

describe("who may reach whom", () => {
  const files = domainFiles(DOMAIN).map((path) => ({ name: relative(DOMAIN, path), text: readFileSync(path, "utf8") }));

  test("only reach.ts asks the store which recipients refuse a sender", () => {
    const askers = files.filter((f) => f.text.includes("mesh.refusingRecipients(")).map((f) => f.name);
    expect(askers).toEqual(["mesh/reach.ts"]);
  });

  test("every domain file that delivers applies the rule (imports reach.ts) or says why it need not", () => {
    const unruled = files
      .filter((f) => DELIVERING.test(f.text) && !(f.name in EXEMPT) && !/from "(\.\.\/mesh|\.)\/reach\.ts"/.test(f.text))
      .map((f) => f.name);
    expect(unruled).toEqual([]);
  });

  test("every exemption names a file that exists", () => {
    expect(Object.keys(EXEMPT).filter((name) => !files.some((f) => f.name === name))).toEqual([]);
  });
});
