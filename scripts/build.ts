// `npm run build`: the fast form. One compiled multi-call executable with bytecode that dispatches on the
// name it is invoked as (bin/<name> sets it). It never autoloads .env or bunfig.toml from the working dir.

import { join } from "node:path";
import { $ } from "bun";
import { compileFlags } from "./compile-flags.ts";

const root = join(import.meta.dir, "..");
const entry = join(root, "app/agent_computer/src/cli/main.ts");
const outfile = join(root, "dist/agent-computer");
await $`${process.execPath} build ${compileFlags} ${entry} --outfile ${outfile}`.quiet();
console.log(`built ${outfile}`);
