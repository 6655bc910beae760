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
