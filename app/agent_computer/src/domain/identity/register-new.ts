import { CliError } from "../../cli/kernel/errors.ts";
import type { StoreTx } from "../../store/port.ts";
import { SYSTEM_SENDER } from "./names.ts";
import { hashToken, mintToken } from "./token.ts";

export interface NewRegistration {
  name: string;
  role: string | null;
  capabilities: string[];
  agentClass?: string;
  description?: string | null;
  hostId?: string | null;
}

export const AUTH_NOTE =
  "This token is shown once and only its hash is stored. It was saved to the 0600 token vault in the state " +
  "directory; to use it elsewhere pass --token-file <path> or set RELAY_AGENT_TOKEN. Never put it in argv.";

/** Registers an unknown name and returns its one-time token (the caller has checked the name is free). */
export const registerNewAgent = async (tx: StoreTx, registration: NewRegistration, now: number): Promise<string> => {
  if (registration.name === SYSTEM_SENDER) {
    throw new CliError("INVALID_INPUT", `--agent-id: ${SYSTEM_SENDER} is reserved for notices from the mesh itself`);
  }
  const token = mintToken();
  await tx.mesh.insertAgent({
    name: registration.name,
    tokenHash: hashToken(token),
    role: registration.role,
    capabilities: registration.capabilities,
    agentClass: registration.agentClass ?? "unclassified",
    description: registration.description ?? null,
    hostId: registration.hostId ?? null,
    now,
  });
  return token;
};
