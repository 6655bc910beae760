/** One description per environment variable, shared by every --help that lists it. */
export const ENV_DOCS = {
  AGENT_COMPUTER_HOME:
    "state directory (default ${XDG_STATE_HOME:-~/.local/state}/agent-computer): the SQLite store, the 0600 token vault, local wake state.",
  AGENT_COMPUTER_DATABASE_URL:
    "postgres://… to use a shared PostgreSQL store instead of the embedded SQLite file; unset = embedded SQLite.",
  RELAY_AGENT_TOKEN: "the agent token, when --token-file is not given; otherwise the token vault in the state directory is used.",
  HERDR_ENV: "set to 1 by Herdr inside its panes; auto-wake is only armed when it is 1.",
  AGENT_COMPUTER_WORKER_URL: "base URL of this host's worker (default http://127.0.0.1:8787), used to print webhook URLs.",
  NO_COLOR: "disables colour (colour is only used on a TTY anyway).",
} as const;

export type EnvName = keyof typeof ENV_DOCS;
