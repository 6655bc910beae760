import type { BinaryDef } from "../kernel/command.ts";
import { AUTH_ENV } from "./options.ts";

/** The token lifecycle and self-service of a registered agent; each subcommand is its own contract. */
const binary: BinaryDef = {
  name: "agent-identity-cli",
  summary: "manage a registered agent's identity: capabilities, token rotation, revocation and recovery, unregistering",
  description:
    "Every subcommand acts on the agent named by --agent-id (alias --name) and is authenticated by that agent's token (--token-file, " +
    "RELAY_AGENT_TOKEN or the 0600 vault of this host). Tokens are never printed except once when minted (rotate-token) " +
    "and the recovery token once when issued (revoke-token --issue-recovery). Registering is register-agent-cli --help.",
  subcommands: {
    "expand-capabilities": () => import("./identity-expand.ts").then((m) => m.default),
    "rotate-token": () => import("./identity-rotate.ts").then((m) => m.default),
    "revoke-token": () => import("./identity-revoke.ts").then((m) => m.default),
    unregister: () => import("./identity-unregister.ts").then((m) => m.default),
    show: () => import("./identity-show.ts").then((m) => m.default),
  },
  env: AUTH_ENV,
  examples: [
    "agent-identity-cli show --agent-id builder-1",
    "agent-identity-cli expand-capabilities --agent-id builder-1 --add docker",
    "agent-identity-cli revoke-token --agent-id builder-1 --issue-recovery --json",
  ],
};

export default binary;
