// The two rules every command that puts text in another agent's inbox states in its --help, worded once here.

/** Who may reach whom: the rule of domain/mesh/reach.ts, as the commands it governs describe it. */
export const REACH_RULE =
  "Who may reach whom is one rule for sends, replies, broadcasts, channel posts, task routing and the notices of a " +
  "task's steps: the recipient's block list refuses a sender under every policy, closed refuses every agent, " +
  "contacts-only admits its allow list only (agent-contacts-cli --help). A refused recipient gets nothing from that " +
  "sender: no inbox row, no webhook event.";

/** The message limits and delivery budgets every such command counts against. */
export const RATE_RULE =
  "Rate limits per sending agent and per host (see Environment): each new message (a send, reply, broadcast, channel " +
  "post or task post) counts once against the message limits, and each inbox it reaches once against the delivery " +
  "budgets, so a post to a 400-member channel weighs 399; over either, RATE_LIMITED (exit 6) with retry_after_s, and " +
  "nothing is written.";

/** The variables that configure RATE_RULE's limits. */
export const MESSAGE_RATE_ENV = [
  "AGENT_COMPUTER_RATE_SEND_PER_NAME",
  "AGENT_COMPUTER_RATE_SEND_PER_HOST",
  "AGENT_COMPUTER_RATE_DELIVER_PER_NAME",
  "AGENT_COMPUTER_RATE_DELIVER_PER_HOST",
] as const;
