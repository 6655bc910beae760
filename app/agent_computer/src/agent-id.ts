/**
 * The agent-id rule: the rule of the `--agent-id` flag (domain/identity/names.ts) and of every host-local file
 * named after an agent (local/wake-registrations.ts). A leaf, so each layer checks the same rule. 1-64 of
 * A-Z a-z 0-9 _ . -, not beginning with "-" (it would read as a flag in every command line printed with it) and
 * not "." or ".." (they name directories, not files).
 */
export const AGENT_ID_PATTERN = /^(?!-)(?!\.\.?$)[A-Za-z0-9_.-]{1,64}$/;

/** The rule in words, for error messages and help. */
export const AGENT_ID_RULE = "1-64 characters of A-Z a-z 0-9 _ . -, not beginning with - and not . or ..";
