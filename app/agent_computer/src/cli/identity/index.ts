import { type BinaryLoader, singleCommand } from "../kernel/binary.ts";

/** The identity binaries: registration, the token lifecycle, and auto-routed tasks. */
export const identityBinaries: Record<string, BinaryLoader> = {
  "register-agent-cli": singleCommand(() => import("./register-agent-cli.ts")),
  "agent-identity-cli": () => import("./agent-identity-cli.ts").then((m) => m.default),
  "agent-task-cli": () => import("./agent-task-cli.ts").then((m) => m.default),
};
