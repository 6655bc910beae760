// Preloaded (bun --preload) into every automation script by the worker. It makes the SDK importable as
// "agent-computer/automation" from any directory, without writing into the job directory, and records an
// uncaught exception so the run shows error_kind "exception" with its message instead of a bare exit 1.
// By hand: bun --preload=<this file> main.ts gives a script the same import.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const sdk = join(import.meta.dir, "automation.ts");

Bun.plugin({
  name: "agent-computer-sdk",
  setup(build) {
    build.module("agent-computer/automation", () => ({ contents: `export * from ${JSON.stringify(sdk)};`, loader: "ts" }));
  },
});

const reportAndExit = (error: unknown): void => {
  const dir = process.env.AGENT_COMPUTER_ATTEMPT_DIR;
  if (dir) {
    const name = error instanceof Error ? error.name : "thrown value";
    const message = error instanceof Error ? error.message : String(error);
    writeFileSync(join(dir, "exception.json"), JSON.stringify({ name, message: message.slice(0, 2000) }), { mode: 0o600 });
  }
  console.error(error);
  process.exit(1);
};

process.on("uncaughtException", reportAndExit);
process.on("unhandledRejection", reportAndExit);
