// The two rules every command that puts text in another agent's inbox states in its --help, worded once here.

/** Who may reach whom: the rule of domain/mesh/reach.ts, as the commands it governs describe it. */
export const REACH_RULE =
  "One rule decides who may reach whom (sends, broadcasts, channel posts, task routing and step notices): a block " +
  "list refuses under any policy, closed refuses all, contacts-only admits its allow list (agent-contacts-cli " +
  "--help); a refused recipient gets no inbox row or webhook event.";

/** The message limits and delivery budgets every such command counts against. */
export const RATE_RULE =
  "Rate limits per sender and per host (Environment: each N/S, N per S seconds, or off; counted across processes): " +
  "a new message (send, reply, broadcast, channel or task post) counts once against the message limit and once per " +
  "inbox reached against the delivery budget; over either: RATE_LIMITED (exit 6), retry_after_s, nothing written or counted.";

/** The variables that configure RATE_RULE's limits. */
export const MESSAGE_RATE_ENV = [
  "AGENT_COMPUTER_RATE_SEND_PER_NAME",
  "AGENT_COMPUTER_RATE_SEND_PER_HOST",
  "AGENT_COMPUTER_RATE_DELIVER_PER_NAME",
  "AGENT_COMPUTER_RATE_DELIVER_PER_HOST",
] as const;
