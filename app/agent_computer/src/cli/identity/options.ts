import { AGENT_ID_RULE } from "../../agent-id.ts";
import type { AgentView } from "../../domain/identity/agent-view.ts";
import { agentId } from "../../domain/identity/names.ts";
import { neutralizeLine } from "../kernel/output.ts";

/** The agent an identity command acts on; it authenticates with that agent's token. */
export const nameOption = agentId(`the agent, ${AGENT_ID_RULE} (authenticated by its token)`);

export const STORE_ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL"] as const;
export const AUTH_ENV = [...STORE_ENV, "RELAY_AGENT_TOKEN", "AGENT_COMPUTER_HOST_ID"] as const;

/** The human rendering of an agent: two lines, untrusted text neutralised. */
export const renderAgent = (a: AgentView): string[] => [
  `${a.name}: ${a.auth_state} · session ${a.session_id ?? "none"} · ${a.alive ? "alive" : "not alive"} (evidence ${a.liveness_evidence})`,
  `  role ${neutralizeLine(a.role ?? "-")} · class ${a.class} · caps ${a.capabilities.join(",") || "-"} · host_id ${a.host_id ?? "-"}` +
    ` · pid ${a.agent_pid ?? "-"} · cli ${a.cli_profile ?? "-"}${a.managed ? " · managed" : ""}`,
  ...(a.description ? [`  description: ${neutralizeLine(a.description)}`] : []),
];
