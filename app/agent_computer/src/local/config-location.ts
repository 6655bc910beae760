// Where the optional configuration file lives and what it may hold, without its parser: every command looks here
// first, and loads local/config-file.ts only when the file exists.

/** Each key of the file and the environment variable that wins over it. */
export const CONFIG_KEYS = {
  state_dir: "AGENT_COMPUTER_HOME",
  database_url: "AGENT_COMPUTER_DATABASE_URL",
  agent_id: "AGENT_COMPUTER_AGENT_ID",
} as const;
export type ConfigKey = keyof typeof CONFIG_KEYS;
export type ConfigFile = Partial<Record<ConfigKey, string>>;

/** $XDG_CONFIG_HOME/agent-computer/config.toml, else $HOME/.config/agent-computer/config.toml. */
export const configFilePath = (env: Record<string, string | undefined>, home: () => string): string =>
  `${env.XDG_CONFIG_HOME || `${home()}/.config`}/agent-computer/config.toml`;
