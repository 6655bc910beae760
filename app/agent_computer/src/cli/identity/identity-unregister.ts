import * as z from "zod/mini";
import { type UnregisterResult, unregisterAgent } from "../../domain/agents/unregister.ts";
import { removeVaultToken } from "../../local/vault.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { AUTH_ENV, nameOption } from "./options.ts";

export const unregisterOptionsSchema = z.object({ agentId: nameOption, tokenFile: tokenFileSchema });

export type UnregisterOptions = z.output<typeof unregisterOptionsSchema>;

const runUnregister = async (options: UnregisterOptions, { ctx, ...deps }: DepsOf<"store">): Promise<UnregisterResult> => {
  const result = await unregisterAgent(deps, {
    agentId: options.agentId,
    token: deps.credential?.token,
  });
  await removeVaultToken(ctx.paths, options.agentId);
  return result;
};

const render = (r: UnregisterResult): string =>
  [
    `${r.name}: unregistered; the name is free`,
    ...(r.ended_session_id ? [`  ended session ${r.ended_session_id}`] : []),
    ...r.rerouted_tasks.map(
      (t) => `  task ${t.task_id} [${t.priority}] ${neutralizeLine(t.title)}: ${t.state}${t.assignee ? ` to ${t.assignee}` : ""}`,
    ),
  ].join("\n");

export default defineCommand({
  name: "agent-identity-cli unregister",
  summary: "remove the agent: end its session, hand its tasks on, free the name",
  description:
    "Deletes the registration of --name: its session ends (senders of unread mail get a bounce), its inbox is deleted, its " +
    "assigned or accepted tasks go to another live capable agent or back to the queue, and the vault file of this host is " +
    "removed. The name can then be registered afresh, with new immutable facts (class, host id, managed, capabilities).",
  schema: unregisterOptionsSchema,
  flags: { agentId: { aliases: ["--name"] } },
  writes: "deletes the agent row, its sessions and deliveries; re-routes its open tasks; removes the vault file.",
  output:
    '{"success":true,"name","removed":true,"ended_session_id","rerouted_tasks":[{"task_id","title","priority","state","assignee"}]}',
  errors: AUTHENTICATED_ERRORS,
  env: AUTH_ENV,
  examples: [
    "agent-identity-cli unregister --agent-id builder-1",
    "agent-identity-cli unregister --agent-id builder-1 --token-file ./builder-1.token --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runUnregister,
  render,
});
