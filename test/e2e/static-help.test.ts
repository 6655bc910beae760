// The compiled form prints each binary's --help from a table rendered at build time (cli/kernel/static-help.ts);
// it must be the very text the source form renders, for every binary, with -h and --help alike. Any other argv
// still goes through the renderer. Runs against the compiled form only (AGENT_COMPUTER_TEST_FORM=compiled after
// `npm run build`): in the source form both sides would be the same renderer.
import { describe, expect, test } from "vitest";
import { binaryForm, runBin } from "../helpers/bin.ts";
import { binaryNames } from "../helpers/registry.ts";

describe.skipIf(binaryForm !== "compiled")("compiled --help from the build-time table [compiled form]", () => {
  test.each(binaryNames)("%s --help and -h print what the source form renders", async (name) => {
    const source = await runBin(name, ["--help"], { env: { AGENT_COMPUTER_FORM: "source" } });
    expect(source.exitCode, source.stderr).toBe(0);
    for (const flag of ["--help", "-h"]) {
      const compiled = await runBin(name, [flag], { env: { AGENT_COMPUTER_FORM: "compiled" } });
      expect(compiled.exitCode, compiled.stderr).toBe(0);
      expect(compiled.stdout).toBe(source.stdout);
    }
  });

  test("--help loads no command module: it is printed before the phase where the command is loaded", async () => {
    const r = await runBin("agent-inbox-cli", ["--help"], {
      env: { AGENT_COMPUTER_FORM: "compiled", AGENT_COMPUTER_STARTUP_EXIT_AFTER: "command-loaded" },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("agent-inbox-cli");
  });

  test("help with other words still comes from the renderer", async () => {
    const r = await runBin("agent-inbox-cli", ["--help", "--json"], { env: { AGENT_COMPUTER_FORM: "compiled" } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("agent-inbox-cli");
  });
});
