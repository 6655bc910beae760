import * as z from "zod/mini";
import { type ShowResult, showAgent } from "../../domain/agents/show.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { AUTH_ENV, nameOption, renderAgent } from "./options.ts";

export const showOptionsSchema = z.object({ agentId: nameOption, tokenFile: tokenFileSchema });

export type ShowOptions = z.output<typeof showOptionsSchema>;

const runShow = async (options: ShowOptions, deps: DepsOf<"store">): Promise<ShowResult> =>
  showAgent(deps, {
    agentId: options.agentId,
    token: deps.credential?.token,
  });

const render = (r: ShowResult): string => [...renderAgent(r.agent), `  open tasks: ${r.open_tasks}`].join("\n");

export default defineCommand({
  name: "agent-identity-cli show",
  summary: "show the agent's registration, current session and liveness (never its token)",
  description:
    "Prints what is registered for --name (role, capabilities, class, host id, managed, pid and start time, cli profile, " +
    "auth state), its current session id (the one a --force takeover must name) and whether it is alive, with the evidence " +
    "(pid: its process on this host; age: its silence against its ttl), plus its number of open tasks. Changes nothing.",
  schema: showOptionsSchema,
  flags: { agentId: { aliases: ["--name"] } },
  writes: "nothing.",
  output:
    '{"success":true,"agent":{"name","role","capabilities","class","description","host_id","managed","agent_pid",' +
    '"agent_pid_start","host_shell_pids","cli_profile","terminal_title_ref","auth_state","session_id","alive",' +
    '"liveness_evidence":"pid|age","created_at","last_seen_at"},"open_tasks"}',
  errors: AUTHENTICATED_ERRORS,
  env: AUTH_ENV,
  examples: [
    "agent-identity-cli show --agent-id builder-1",
    "agent-identity-cli show --agent-id builder-1 --json | jq .agent.session_id",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: runShow,
  render,
});
