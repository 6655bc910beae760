// `npm pack` writes <name>-<version>.tgz into the checkout (README: install the package); git must not offer it
// for a commit.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { expect, test } from "vitest";
import { repoRoot } from "../helpers/bin.ts";

test("the tarball npm pack leaves in the checkout is ignored by git", async () => {
  const { name, version } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { name: string; version: string };
  const tarball = `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
  const result = await execa("git", ["check-ignore", "--no-index", "--verbose", tarball], { cwd: repoRoot, reject: false });
  expect(result.exitCode, `${tarball} is not ignored`).toBe(0);
});
