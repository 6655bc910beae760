// Man pages: the build writes dist/man/man1/<binary>.1 for every binary of the registry, from the same --help text it
// bakes into the compiled form, and package.json lists them for npm to link. Each page renders with groff without a
// warning, and man(1) shows it with the binary's name, options and exit codes.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { version } from "../../package.json";
import { manPage } from "../../scripts/man-pages.ts";
import { repoRoot, runBin } from "../helpers/bin.ts";
import { binaryNames } from "../helpers/registry.ts";

const page = (name: string): string => join(repoRoot, "dist/man/man1", `${name}.1`);
const has = (tool: string): boolean => Bun.spawnSync(["sh", "-c", `command -v ${tool}`]).exitCode === 0;

describe("man pages", () => {
  test("one page per binary after the build, and package.json lists exactly those", () => {
    const missing = binaryNames.filter((name) => !existsSync(page(name)));
    expect(missing, "missing pages: run npm run build").toEqual([]);
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { man: string[]; files: string[] };
    expect(pkg.man).toEqual(binaryNames.map((name) => `dist/man/man1/${name}.1`));
    expect(pkg.files).toContain("dist/");
  });

  test("a page is the binary's --help in roff", async () => {
    const help = await runBin("agent-reserve-cli", ["--help"]);
    expect(readFileSync(page("agent-reserve-cli"), "utf8")).toBe(manPage("agent-reserve-cli", help.stdout, version));
  });

  test.skipIf(!has("groff"))("every page renders with groff, no warnings", async () => {
    const r = await execa("groff", ["-man", "-Tutf8", "-ww", "-z", ...binaryNames.map(page)], { reject: false });
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
  });

  test.skipIf(!has("man"))("man -l shows the name, the options and the exit codes", async () => {
    const r = await execa("man", ["-l", page("agent-inbox-cli")], { env: { MANWIDTH: "100", MANPAGER: "cat", PAGER: "cat" } });
    const text = String(r.stdout);
    expect(text).toContain("agent-inbox-cli - read this agent's unacknowledged Agent Mesh messages");
    expect(text).toMatch(/^OPTIONS\n\s+--agent-id <id>$/m);
    expect(text).toMatch(/^EXIT CODES\n\s+0 ok · 1 unexpected\/internal failure/m);
  });

  test("text that looks like roff stays text", () => {
    const roff = manPage("x", "x — a\n\n.TH not a request\n'also not\nback\\slash -flag\n\nUsage:\n  x --y\n", "1");
    expect(roff).toContain("\\&.TH not a request");
    expect(roff).toContain("\\&'also not");
    expect(roff).toContain("back\\eslash \\-flag");
    expect(roff).toContain(".SH USAGE\n.nf\n  x \\-\\-y\n.fi");
  });
});
