// Start-up phases of a command, for bench/startup.ts. With AGENT_COMPUTER_STARTUP_EXIT_AFTER=<phase> the process
// exits (status 0) the moment it reaches that phase, so the bench can time each prefix of a real command as a whole
// process and attribute the milliseconds by difference, with no timer inside the process. An open SQLite store is
// still closed (Bun closes its databases at exit, checkpoint included), so each run leaves the store as the full
// command leaves it. Unset, as it always is outside the bench, each call costs one comparison. Not a user setting:
// no --help lists it.

/** In order: entry evaluated (runtime, main module and its static imports), the binary's command module loaded,
 * argv parsed (commander, then zod), the store opened, the command's work done (before its output is written). */
export type StartupPhase = "entry" | "command-loaded" | "argv-parsed" | "store-open" | "command-run";

const exitAfter = process.env.AGENT_COMPUTER_STARTUP_EXIT_AFTER;

export const reachedPhase = (phase: StartupPhase): void => {
  if (exitAfter === phase) process.exit(0);
};
