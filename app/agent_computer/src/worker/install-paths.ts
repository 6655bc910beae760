// Where the worker finds what it hands to attempts. From source, the package root is four levels up; a
// compiled executable lives in <root>/dist and acts as Bun itself when BUN_BE_BUN=1.
import { dirname, join } from "node:path";

export interface InstallPaths {
  root: string;
  /** The Bun that runs scripts (the worker's own). */
  bunPath: string;
  /** true when bunPath is the compiled agent-computer executable (it needs BUN_BE_BUN=1 to act as Bun). */
  standalone: boolean;
  /** Preloaded into every script: makes "agent-computer/automation" importable from any directory. */
  sdkPreload: string;
  mcporterCli: string;
  defaultSkillsDir: string;
}

export const installPaths = (): InstallPaths => {
  const standalone = Bun.isStandaloneExecutable;
  const root = standalone ? dirname(dirname(process.execPath)) : join(import.meta.dir, "..", "..", "..", "..");
  return {
    root,
    bunPath: process.execPath,
    standalone,
    sdkPreload: join(root, "app", "agent_computer", "src", "sdk", "preload.ts"),
    mcporterCli: join(root, "node_modules", "mcporter", "dist", "cli.js"),
    defaultSkillsDir: join(root, "skills"),
  };
};
