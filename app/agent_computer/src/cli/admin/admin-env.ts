/** The variables every agent-computer-admin subcommand reads: where the store is. */
export const ADMIN_ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "XDG_STATE_HOME", "PATH"] as const;
