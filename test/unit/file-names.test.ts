// Names that mean one thing: two source files share a name only where the folder makes the shared role plain
// (sibling store adapters, one registry per CLI family, the SQL of a concept beside the concept). A new name taken
// twice fails here until it is renamed or its shared role is written down below.
import { readdirSync } from "node:fs";
import { basename, resolve } from "node:path";
import { expect, test } from "vitest";

const SRC = resolve(import.meta.dirname, "../../app/agent_computer/src");

/** Names several files may carry, and the one role they all have. */
const SHARED_ROLES: Record<string, string> = {
  "driver.ts": "a store adapter's driver (store/sqlite, store/postgres: sibling adapters, same file roles)",
  "error-mapping.ts": "what a store adapter's driver failure means",
  "group-commit.ts": "a store adapter's shared COMMIT",
  "migration-set.ts": "a store adapter's registered migrations",
  "index.ts": "a CLI family's registry (cli/<family>/index.ts)",
  "shared.ts": "what one CLI family's commands share",
  "automation.ts": "the automation concept: its SQL (store/sql/) and its SDK (sdk/)",
  "channels.ts": "the channels concept: its SQL (store/sql/) and its rules (domain/mesh/)",
  "lease-inventory.ts": "the lease inventory: the command (cli/herdr/) and the service it calls (domain/herdr/)",
};

test("no two source files share a name unless their folders make one role plain", () => {
  const byName = new Map<string, string[]>();
  for (const file of readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
    byName.set(basename(file), [...(byName.get(basename(file)) ?? []), file]);
  }
  const unexplained = [...byName.entries()]
    .filter(([name, files]) => files.length > 1 && !(name in SHARED_ROLES))
    .map(([, files]) => files.sort().join(" + "));
  expect(unexplained).toEqual([]);
});
