// A test file cleans up after itself even when its tests do not: the project's vitest setup removes the file's
// temp dirs (TMPDIR points into one dir per file) and drops the PostgreSQL databases the store helpers made.
// The proof runs vitest, with the project's setup file, on a fixture that leaves both behind.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { execa } from "execa";
import { expect, test } from "vitest";
import { repoRoot } from "../helpers/bin.ts";
import { pgUrl } from "../helpers/stores.ts";

test("a test file's litter is gone when it ends: its temp dirs and its store databases", async () => {
  const work = mkdtempSync(join(tmpdir(), "ac-hygiene-"));
  const systemTmp = join(work, "system-tmp");
  const report = join(work, "report.json");
  const config = join(work, "vitest.config.mjs");
  // No imports: the config is loaded from outside the repository, where no vitest resolves.
  writeFileSync(
    config,
    `export default ${JSON.stringify({
      root: repoRoot,
      test: {
        include: ["test/fixtures/hygiene/litters.fixture.ts"],
        setupFiles: ["test/setup/isolate-home.ts"],
        pool: "forks",
        server: { deps: { inline: ["zod"] } },
      },
    })};\n`,
  );
  mkdirSync(systemTmp);
  const run = await execa(join(repoRoot, "node_modules/.bin/bun"), ["--bun", "vitest", "run", "--config", config], {
    cwd: repoRoot,
    // Only what a fresh run has: none of this run's own test root.
    env: {
      PATH: process.env.PATH as string,
      TMPDIR: systemTmp,
      HYGIENE_REPORT: report,
      ...(pgUrl ? { AGENT_COMPUTER_TEST_PG_URL: pgUrl } : {}),
    },
    extendEnv: false,
    reject: false,
  });
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  const made = JSON.parse(readFileSync(report, "utf8")) as { dir: string; database: string };
  expect(made.dir.startsWith(systemTmp)).toBe(true);
  expect(existsSync(made.dir)).toBe(false);
  expect(readdirSync(systemTmp)).toEqual([]);
  if (pgUrl) {
    expect(made.database).toMatch(/^ac_t_/);
    const admin = new SQL(pgUrl);
    try {
      const rows = await admin.unsafe("SELECT 1 FROM pg_database WHERE datname = $1", [made.database]);
      expect(rows.length, `${made.database} is left`).toBe(0);
    } finally {
      await admin.close();
    }
  }
}, 120_000);
