import { readFileSync } from "node:fs";
import { agentId } from "../../domain/identity/names.ts";
import type { AgentView } from "../../domain/identity/view.ts";
import { AppError } from "../../errors.ts";
import type { CommandContext } from "../kernel/context.ts";
import { neutralizeLine } from "../kernel/output.ts";

/** The agent an identity command acts on; it authenticates with that agent's token. */
export const nameOption = agentId("the agent, 1-64 characters of A-Z a-z 0-9 _ . - (authenticated by its token)");

export const STORE_ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL"] as const;
export const AUTH_ENV = [...STORE_ENV, "RELAY_AGENT_TOKEN", "AGENT_COMPUTER_HOST_ID"] as const;

/** Reads a secret from a file or, for "-", stdin; the error names the file, never the content. */
export const readSecret = async (ctx: CommandContext, flag: string, path: string): Promise<string> => {
  let text = "";
  try {
    text = path === "-" ? await ctx.readStdin() : readFileSync(path, "utf8");
  } catch {
    // reported below without the content
  }
  const secret = text.trim();
  if (!secret) throw new AppError("INVALID_INPUT", `${flag}: cannot read a token from ${path === "-" ? "stdin" : path}`);
  return secret;
};

/** The human rendering of an agent: two lines, untrusted text neutralised. */
export const renderAgent = (a: AgentView): string[] => [
  `${a.name}: ${a.auth_state} · session ${a.session_id ?? "none"} · ${a.alive ? "alive" : "not alive"} (evidence ${a.liveness_evidence})`,
  `  role ${neutralizeLine(a.role ?? "-")} · class ${a.class} · caps ${a.capabilities.join(",") || "-"} · host_id ${a.host_id ?? "-"}` +
    ` · pid ${a.agent_pid ?? "-"} · cli ${a.cli_profile ?? "-"}${a.managed ? " · managed" : ""}`,
  ...(a.description ? [`  description: ${neutralizeLine(a.description)}`] : []),
];
