// `npm run build`: the fast form. One compiled multi-call executable with bytecode that dispatches on the
// name it is invoked as (bin/<name> sets it). It never autoloads .env or bunfig.toml from the working dir.

import { join } from "node:path";
import { $ } from "bun";

const root = join(import.meta.dir, "..");
const entry = join(root, "app/agent_computer/src/cli/main.ts");
// A Worker's program is bundled only as an entry point of its own: the SQLite checkpoint thread's.
const checkpointWorker = join(root, "app/agent_computer/src/store/sqlite/checkpoint-worker.ts");
const outfile = join(root, "dist/agent-computer");
await $`${process.execPath} build --compile --bytecode --minify --no-compile-autoload-dotenv --no-compile-autoload-bunfig ${entry} ${checkpointWorker} --outfile ${outfile}`.quiet();
console.log(`built ${outfile}`);
