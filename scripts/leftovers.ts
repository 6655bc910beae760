// What a test run leaves behind, for the test command (scripts/test-all.sh) to fail on:
//   bun scripts/leftovers.ts snapshot FILE   records the temp dir's entries, the PostgreSQL databases, the network
//                                            namespaces and this checkout's processes before the run;
//   bun scripts/leftovers.ts compare FILE    names everything of those that is new after it and exits 1 if any is;
//                                            the names also go to FILE's sibling leftovers.json for the summary.
// Processes count when their command line names this checkout (bin/, dist/, the project's Bun, a test fixture), so
// another checkout's work on the same machine is not taken for ours. A process or directory may take a moment to
// go after the last suite ends, so compare looks again for a few seconds before it reports.

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SQL } from "bun";

interface Snapshot {
  tmp: string[];
  databases: string[];
  netns: string[];
  processes: string[];
}

// AC_LEFTOVERS_ROOT stands in for the checkout (the check's own test uses a scratch one).
const root = process.env.AC_LEFTOVERS_ROOT || join(import.meta.dir, "..");
const tmp = tmpdir();

const databases = async (): Promise<string[]> => {
  const url = process.env.AGENT_COMPUTER_TEST_PG_URL;
  if (!url) return [];
  const db = new SQL(url);
  try {
    const rows = (await db.unsafe("SELECT datname FROM pg_database")) as { datname: string }[];
    return rows.map((row) => row.datname);
  } finally {
    await db.close();
  }
};

const netns = (): string[] => {
  const listed = Bun.spawnSync(["ip", "netns", "list"], { stderr: "ignore" });
  if (listed.exitCode !== 0) return [];
  return listed.stdout
    .toString()
    .split("\n")
    .map((line) => line.split(" ")[0] as string)
    .filter(Boolean);
};

/** "pid command line" of every process whose command line names this checkout, this script and its parents aside. */
const processes = (): string[] => {
  const own = new Set([String(process.pid), String(process.ppid)]);
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name) && !own.has(name))
    .flatMap((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
        const line = argv.join(" ");
        return line.includes(root) && !line.includes("scripts/leftovers.ts") && !line.includes("scripts/test-all.sh")
          ? [`${pid} ${line.slice(0, 300)}`]
          : [];
      } catch {
        return [];
      }
    });
};

const snapshot = async (): Promise<Snapshot> => ({
  tmp: readdirSync(tmp),
  databases: await databases(),
  netns: netns(),
  processes: processes(),
});

const newSince = (before: Snapshot, after: Snapshot): string[] => {
  const added = (kind: keyof Snapshot, what: string): string[] => {
    const old = new Set(before[kind]);
    return after[kind].filter((name) => !old.has(name)).map((name) => `${what}: ${name}`);
  };
  return [
    ...added("tmp", `entry in ${tmp}`),
    ...added("databases", "PostgreSQL database"),
    ...added("netns", "network namespace"),
    ...added("processes", "process"),
  ];
};

const [command, file] = process.argv.slice(2);
if (command === "snapshot" && file) {
  writeFileSync(file, JSON.stringify(await snapshot()));
} else if (command === "compare" && file && existsSync(file)) {
  const before = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
  let left = newSince(before, await snapshot());
  for (let attempt = 0; left.length > 0 && attempt < 10; attempt++) {
    await Bun.sleep(500);
    left = newSince(before, await snapshot());
  }
  writeFileSync(join(dirname(file), "leftovers.json"), JSON.stringify(left));
  if (left.length > 0) {
    console.log(`LEFTOVER: the test run left ${left.length} thing(s) behind:`);
    for (const line of left.slice(0, 200)) console.log(`LEFTOVER ${line}`);
    process.exit(1);
  }
  console.log("no leftovers: no new temp entry, database, network namespace or process");
} else {
  console.error("usage: bun scripts/leftovers.ts snapshot|compare FILE");
  process.exit(2);
}
