import * as z from "zod/mini";
import {
  previewUnregister,
  type UnregisterPreview,
  type UnregisterResult,
  unregisterAgent,
} from "../../domain/agents/unregister.ts";
import { removeVaultToken } from "../../local/vault.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { confirmCommand, confirmOption, previewHeadline } from "../kernel/confirm.ts";
import { AUTHENTICATED_ERRORS, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { AUTH_ENV, nameOption } from "./options.ts";

export const unregisterOptionsSchema = z.object({
  agentId: nameOption,
  confirm: confirmOption("unregister"),
  tokenFile: tokenFileSchema,
});

export type UnregisterOptions = z.output<typeof unregisterOptionsSchema>;
export type UnregisterOutput = UnregisterResult | (UnregisterPreview & { confirm_command: string });

const runUnregister = async (options: UnregisterOptions, { ctx, ...deps }: DepsOf<"store">): Promise<UnregisterOutput> => {
  const call = { agentId: options.agentId, token: deps.credential?.token };
  if (!options.confirm) {
    const tokenFile = options.tokenFile === undefined ? [] : ["--token-file", options.tokenFile];
    return {
      ...(await previewUnregister(deps, call)),
      confirm_command: confirmCommand("agent-identity-cli", "unregister", "--agent-id", options.agentId, ...tokenFile),
    };
  }
  const result = await unregisterAgent(deps, call);
  await removeVaultToken(ctx.paths, options.agentId);
  return result;
};

const renderPreview = (r: UnregisterPreview & { confirm_command: string }): string =>
  [
    previewHeadline(`unregister ${r.name}: delete its registration and inbox, free the name`),
    r.session_id
      ? `  end session ${r.session_id}; its ${r.unacknowledged_messages} unacknowledged message(s) bounce to their senders`
      : "  no open session to end",
    `  hand on ${r.open_tasks.length} open task(s) to another live capable agent or the queue`,
    ...r.open_tasks.map((t) => `  task ${t.task_id} [${t.priority}] ${neutralizeLine(t.title)}: ${t.state}`),
    `  release ${r.reservations} file reservation(s); remove this host's vault file`,
    `to do it: ${r.confirm_command}`,
  ].join("\n");

const render = (r: UnregisterOutput): string =>
  "preview" in r
    ? renderPreview(r)
    : [
        `${r.name}: unregistered; the name is free`,
        ...(r.ended_session_id ? [`  ended session ${r.ended_session_id}`] : []),
        ...r.rerouted_tasks.map(
          (t) =>
            `  task ${t.task_id} [${t.priority}] ${neutralizeLine(t.title)}: ${t.state}${t.assignee ? ` to ${t.assignee}` : ""}`,
        ),
      ].join("\n");

export default defineCommand({
  name: "agent-identity-cli unregister",
  summary: "remove the agent: end its session, hand its tasks on, free the name (preview unless --confirm)",
  description:
    "Deletes the registration of --name: its session ends (senders of unread mail get a bounce), its inbox is deleted, its " +
    "assigned or accepted tasks go to another live capable agent or back to the queue, its file reservations are released " +
    "and the vault file of this host is removed. The name can then be registered afresh, with new immutable facts (class, " +
    "host id, managed, capabilities).\n" +
    "Without --confirm this authenticates, prints what would go (session, unacknowledged mail, open tasks, reservations) " +
    "and the exact command with --confirm, and changes nothing (exit 0).",
  schema: unregisterOptionsSchema,
  flags: { agentId: { aliases: ["--name"] } },
  writes:
    "with --confirm: deletes the agent row, its sessions and deliveries; re-routes its open tasks; releases its " +
    "reservations; removes the vault file. Without: nothing.",
  output:
    '{"success":true,"name","removed":true,"ended_session_id","rerouted_tasks":[{"task_id","title","priority","state","assignee"}]}; ' +
    'preview: {"preview":true,"name","removed":false,"session_id","unacknowledged_messages","open_tasks":[{"task_id","title",' +
    '"priority","state"}],"reservations","confirm_command"}',
  errors: AUTHENTICATED_ERRORS,
  env: AUTH_ENV,
  examples: [
    "agent-identity-cli unregister --agent-id builder-1   # preview",
    "agent-identity-cli unregister --agent-id builder-1 --token-file ./builder-1.token --confirm --json",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runUnregister,
  render,
});
