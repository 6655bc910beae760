import { type BinaryLoader, singleCommand } from "../kernel/binary.ts";

/** The Agent Mesh binaries. */
export const meshBinaries: Record<string, BinaryLoader> = {
  "agent-checkin-cli": singleCommand(() => import("./agent-checkin-cli.ts")),
  "agent-checkout-cli": singleCommand(() => import("./agent-checkout-cli.ts")),
  "agent-inbox-cli": singleCommand(() => import("./agent-inbox-cli.ts")),
  "agent-ack-cli": singleCommand(() => import("./agent-ack-cli.ts")),
  "agent-send-cli": singleCommand(() => import("./agent-send-cli.ts")),
  "agent-sent-cli": singleCommand(() => import("./agent-sent-cli.ts")),
  "agent-thread-cli": singleCommand(() => import("./agent-thread-cli.ts")),
  "agent-search-cli": singleCommand(() => import("./agent-search-cli.ts")),
  "agent-contacts-cli": () => import("./agent-contacts-cli.ts").then((m) => m.default),
  "agent-channel-cli": () => import("./agent-channel-cli.ts").then((m) => m.default),
  "agent-webhook-cli": () => import("./agent-webhook-cli.ts").then((m) => m.default),
  "agents-list-cli": singleCommand(() => import("./agents-list-cli.ts")),
  "agent-wake-cli": singleCommand(() => import("./agent-wake-cli.ts")),
};
