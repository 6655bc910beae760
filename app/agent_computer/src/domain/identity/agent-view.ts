import type { IdentityRecord, SessionRecord } from "../../store/port.ts";
import { iso, type LocalProcess } from "../deps.ts";
import type { Liveness } from "./liveness.ts";

/** An agent as every identity command prints it (never its token or any hash). */
export interface AgentView {
  name: string;
  role: string | null;
  capabilities: string[];
  class: string;
  description: string | null;
  host_id: string | null;
  managed: boolean;
  agent_pid: number | null;
  agent_pid_start: string | null;
  host_shell_pids: number[] | null;
  cli_profile: string | null;
  terminal_title_ref: string | null;
  auth_state: string;
  session_id: string | null;
  alive: boolean;
  liveness_evidence: Liveness["evidence"];
  created_at: string;
  last_seen_at: string;
}

/** `process`: what this host recorded of the agent's process; another host knows none (the fields are null there). */
export const agentView = (
  agent: IdentityRecord,
  session: SessionRecord | undefined,
  liveness: Liveness,
  process: LocalProcess | undefined,
): AgentView => ({
  name: agent.agentId,
  role: agent.role,
  capabilities: agent.capabilities,
  class: agent.agentClass,
  description: agent.description,
  host_id: agent.hostId,
  managed: agent.managed,
  agent_pid: process?.agentPid ?? null,
  agent_pid_start: process?.agentPidStart ?? null,
  host_shell_pids: process?.hostShellPids ?? null,
  cli_profile: agent.cliProfile,
  terminal_title_ref: agent.terminalTitleRef,
  auth_state: agent.authState,
  session_id: session?.id ?? null,
  alive: liveness.alive,
  liveness_evidence: liveness.evidence,
  created_at: iso(agent.createdAt),
  last_seen_at: iso(agent.lastSeenAt),
});
