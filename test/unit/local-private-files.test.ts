// The one private write of host-local state: 0700 directories and 0600 files (tightened again when loosened),
// atomic replacement, and temp files that a crashed writer leaves behind are never read and never break a write.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { listJson, readJson, writeJsonAtomic } from "../../app/agent_computer/src/local/herdr-state.ts";
import {
  createPrivateFileExclusive,
  ensurePrivateDir,
  ensurePrivateFile,
  writePrivateFile,
} from "../../app/agent_computer/src/local/private-files.ts";

const newDir = () => mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "private-"));
const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe("private directories and files", () => {
  test("a new file is exactly 0600 in a new 0700 directory, whatever the umask takes away", () => {
    const dir = join(newDir(), "a");
    // This umask alone would leave the directory 0500 and the file 0400.
    const previous = process.umask(0o277);
    try {
      const file = writePrivateFile(dir, "x.json", "{}\n");
      expect(modeOf(dir)).toBe(0o700);
      expect(modeOf(file)).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  test("a loosened directory and file are made private again by the next write", () => {
    const dir = newDir();
    const file = writePrivateFile(dir, "x.json", "1\n");
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);
    writePrivateFile(dir, "x.json", "2\n");
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(file)).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe("2\n");
  });

  test("ensurePrivateDir and ensurePrivateFile create or repair, keeping the content", () => {
    const dir = join(newDir(), "store");
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const file = join(dir, "db");
    writeFileSync(file, "content", { mode: 0o644 });
    chmodSync(file, 0o644);
    ensurePrivateDir(dir);
    ensurePrivateFile(file);
    ensurePrivateFile(join(dir, "new"));
    expect([modeOf(dir), modeOf(file), modeOf(join(dir, "new"))]).toEqual([0o700, 0o600, 0o600]);
    expect(readFileSync(file, "utf8")).toBe("content");
  });
});

describe("atomic replacement", () => {
  test("a temp file left by a crashed writer is never read, and the next write completes", () => {
    const dir = newDir();
    writeJsonAtomic(dir, "lease.json", { n: 1 });
    // What a writer killed between write and rename leaves: a partial temp beside the record.
    writeFileSync(join(dir, "lease.json.4242.deadbeef.tmp"), '{"n": 2, "trunc');
    expect(readJson(dir, "lease.json")).toEqual({ n: 1 });
    expect(listJson(dir)).toEqual([{ n: 1 }]);
    writeJsonAtomic(dir, "lease.json", { n: 3 });
    expect(readJson(dir, "lease.json")).toEqual({ n: 3 });
    expect(listJson(dir)).toEqual([{ n: 3 }]);
  });

  test("a write that fails leaves the old file whole and no temp file behind", () => {
    const dir = newDir();
    // rename(2) cannot replace a non-empty directory: the write fails after its temp file was complete.
    mkdirSync(join(dir, "blocked.json"));
    writeFileSync(join(dir, "blocked.json", "inside"), "x");
    writePrivateFile(dir, "kept.json", "old\n");
    expect(() => writePrivateFile(dir, "blocked.json", "new\n")).toThrow();
    expect(readdirSync(dir).sort()).toEqual(["blocked.json", "kept.json"]);
    expect(readFileSync(join(dir, "kept.json"), "utf8")).toBe("old\n");
  });

  test("a durable write lands the same content", () => {
    const dir = newDir();
    writeJsonAtomic(dir, "receipt.json", { token: "r1" }, { durable: true });
    expect(readJson(dir, "receipt.json")).toEqual({ token: "r1" });
    expect(readdirSync(dir)).toEqual(["receipt.json"]);
  });

  test("an exclusive create appears complete or not at all, and never replaces", () => {
    const dir = newDir();
    const file = join(dir, "owner.lock");
    expect(createPrivateFileExclusive(file, "first\n")).toBe(true);
    expect(createPrivateFileExclusive(file, "second\n")).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("first\n");
    expect(modeOf(file)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["owner.lock"]);
    expect(existsSync(`${file}.tmp`)).toBe(false);
  });
});
