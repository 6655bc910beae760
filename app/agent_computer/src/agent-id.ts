/**
 * The agent-id charset: the rule of the `--agent-id` flag (domain/identity/names.ts) and of every host-local file
 * named after an agent (local/wake-registrations.ts). A leaf, so each layer checks the same rule.
 */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
