// The multi-call entry: every bin/<name> launcher (and the compiled executable) lands here and
// dispatches on the name it was invoked as. The compiled form is ESM with code splitting (scripts/compile-options.ts):
// each import() reached from here is a chunk of its own, loaded only when that import runs.
import { config } from "zod/v4/core";
import en from "zod/v4/locales/en.js";
import { binaries, longRunning } from "./binaries.ts";
import { takeLauncherSettings } from "./kernel/launcher-env.ts";
import { neutralizeLine, writeStderr, writeStdout } from "./kernel/output.ts";
import { runBinary } from "./kernel/run-binary.ts";
import { reachedPhase } from "./kernel/startup-phase.ts";

// Before any command module builds its schemas (zod decides per schema, when it is built): a process
// parses each schema about once, and compiling a fast path for it costs more than the parse (bench/mesh.ts).
// English messages for every schema: zod/mini sets no locale of its own.
config({ jitless: true, ...en() });

const main = async (): Promise<void> => {
  const invokedAs = takeLauncherSettings(process.env, process.argv[1], process.argv0);
  reachedPhase("entry");
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
    // The compiled form carries every binary's help text, rendered at build time: nothing else needs loading.
    const text = (await import("./kernel/static-help.ts")).staticHelp(invokedAs);
    if (text !== undefined) {
      await writeStdout(text);
      process.exit(0);
    }
  }
  const load = Object.hasOwn(binaries, invokedAs) ? binaries[invokedAs] : undefined;
  if (!load) {
    await writeStderr(
      `agent-computer: unknown binary name "${neutralizeLine(invokedAs)}"; known: ${Object.keys(binaries).join(", ")}\n`,
    );
    process.exit(2);
  }
  const binary = await load();
  reachedPhase("command-loaded");
  await runBinary(binary, argv, { longLived: longRunning.has(invokedAs) });
};

void main();
