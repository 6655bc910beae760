/** Every on-disk location the project uses, derived from the environment in one place. */
export interface Paths {
  stateDir: string;
  sqliteFile: string;
  vaultDir: string;
  runDir: string;
}

/** $HOME, else the OS's record of the user: node:os (a millisecond of start-up) is loaded only then. */
const homeDir = (env: Record<string, string | undefined>): string =>
  env.HOME || (require("node:os") as typeof import("node:os")).homedir();

/** The variable that decided the state directory, for messages about it: the first one set wins. */
export const stateDirSetting = (env: Record<string, string | undefined>): { variable: string; value: string } => {
  if (env.AGENT_COMPUTER_HOME) return { variable: "AGENT_COMPUTER_HOME", value: env.AGENT_COMPUTER_HOME };
  if (env.XDG_STATE_HOME) return { variable: "XDG_STATE_HOME", value: env.XDG_STATE_HOME };
  return { variable: "HOME", value: homeDir(env) };
};

// Plain "/" joins: POSIX paths only, and node:path would be one more module on every command's start-up.
export const resolvePaths = (env: Record<string, string | undefined>): Paths => {
  const stateRoot = env.XDG_STATE_HOME || `${homeDir(env)}/.local/state`;
  const stateDir = env.AGENT_COMPUTER_HOME || `${stateRoot}/agent-computer`;
  return {
    stateDir,
    sqliteFile: `${stateDir}/agent-computer.sqlite`,
    vaultDir: `${stateDir}/tokens`,
    runDir: `${stateDir}/run`,
  };
};
