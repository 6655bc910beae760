import { homedir } from "node:os";
import { join } from "node:path";

/** Every on-disk location the project uses, derived from the environment in one place. */
export interface Paths {
  stateDir: string;
  sqliteFile: string;
  vaultDir: string;
  runDir: string;
}

export const resolvePaths = (env: Record<string, string | undefined>): Paths => {
  const stateRoot = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  const stateDir = env.AGENT_COMPUTER_HOME || join(stateRoot, "agent-computer");
  return {
    stateDir,
    sqliteFile: join(stateDir, "agent-computer.sqlite"),
    vaultDir: join(stateDir, "tokens"),
    runDir: join(stateDir, "run"),
  };
};
