import * as z from "zod/mini";
import { type ExpandResult, expandCapabilities } from "../../domain/agents/expand.ts";
import { capabilitySchema } from "../../domain/identity/names.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { AUTH_ENV, nameOption } from "./options.ts";

export const expandOptionsSchema = z
  .object({
    agentId: nameOption,
    add: z._default(z.array(capabilitySchema).check(z.maxLength(64)), []).check(z.describe("capabilities to add")),
    remove: z
      ._default(z.array(capabilitySchema).check(z.maxLength(64)), [])
      .check(z.describe("never allowed (capabilities only grow): always fails REDUCTION_NOT_ALLOWED and changes nothing")),
    tokenFile: tokenFileSchema,
  })
  .check(
    z.superRefine((o, ctx) => {
      if (o.add.length === 0 && o.remove.length === 0)
        ctx.addIssue({ code: "custom", path: ["add"], message: "is required (at least one capability)", input: undefined });
    }),
  );

export type ExpandOptions = z.output<typeof expandOptionsSchema>;

const runExpand = async (options: ExpandOptions, deps: DepsOf<"store">): Promise<ExpandResult> =>
  expandCapabilities(deps, {
    agentId: options.agentId,
    token: deps.credential?.token,
    add: options.add,
    remove: options.remove,
  });

const render = (r: ExpandResult): string =>
  [
    `${r.name}: added ${r.added.join(", ")}; capabilities now ${r.capabilities.join(", ")}`,
    ...(r.auto_assigned_tasks ?? []).map((t) => `  auto-assigned: ${t.task_id} [${t.priority}] ${neutralizeLine(t.title)}`),
  ].join("\n");

export default defineCommand({
  name: "agent-identity-cli expand-capabilities",
  summary: "add capabilities to a registered agent (additive only)",
  description:
    "Capabilities are fixed at registration and only grow, because other agents route tasks by them. --add names new ones; " +
    "if every one is already held the call fails NO_OP_EXPANSION; --remove always fails REDUCTION_NOT_ALLOWED (to drop one, " +
    "unregister and register again). Nothing is written by a failing call. If the agent is checked in, queued tasks it can " +
    "now do are assigned to it (auto_assigned_tasks) and announced in its inbox.",
  schema: expandOptionsSchema,
  flags: { agentId: { aliases: ["--name"] }, add: { placeholder: "<cap>" }, remove: { placeholder: "<cap>" } },
  writes: "the agent's capabilities and, if it is checked in, assignments of queued tasks it can now do.",
  output: '{"success":true,"name","added":[],"capabilities":[],"auto_assigned_tasks"?:[{"task_id","title","priority"}]}',
  errors: authenticatedErrorsWith("REDUCTION_NOT_ALLOWED", "NO_OP_EXPANSION"),
  env: AUTH_ENV,
  examples: [
    "agent-identity-cli expand-capabilities --agent-id builder-1 --add docker --add k8s",
    "agent-identity-cli expand-capabilities --agent-id builder-1 --add gpu,tpu --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runExpand,
  render,
});
