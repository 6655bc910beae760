// File and stdin inputs are read with their limit enforced while reading, and every failure names the flag.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { CommandContext } from "../../app/agent_computer/src/cli/kernel/command-context.ts";
import { InputTooLarge, readFlagInput, readLimited } from "../../app/agent_computer/src/cli/kernel/input.ts";
import { AppError } from "../../app/agent_computer/src/errors.ts";

const dir = mkdtempSync(join(tmpdir(), "ac-input-"));
const ctx = { readInput: readLimited } as unknown as CommandContext;

describe("readLimited", () => {
  test("an endless input (/dev/zero) stops at the limit instead of filling memory", async () => {
    await expect(readLimited("/dev/zero", 100_000)).rejects.toBeInstanceOf(InputTooLarge);
  });

  test("a file of exactly the limit is read whole; one byte more is too large", async () => {
    const file = join(dir, "exact");
    writeFileSync(file, "x".repeat(70_000));
    expect(await readLimited(file, 70_000)).toHaveLength(70_000);
    await expect(readLimited(file, 69_999)).rejects.toBeInstanceOf(InputTooLarge);
  });

  test("an endless pipe (a FIFO fed by `yes`) stops at the limit too", async () => {
    const fifo = join(dir, "fifo");
    Bun.spawnSync(["mkfifo", fifo]);
    const writer = Bun.spawn(["sh", "-c", 'exec yes > "$1"', "sh", fifo], { stderr: "ignore" });
    try {
      await expect(readLimited(fifo, 200_000)).rejects.toBeInstanceOf(InputTooLarge);
    } finally {
      writer.kill();
      await writer.exited;
    }
  });

  test("a short pipe is read to its end; a directory is refused", async () => {
    const fifo = join(dir, "short-fifo");
    Bun.spawnSync(["mkfifo", fifo]);
    const writer = Bun.spawn(["sh", "-c", 'printf act_token > "$1"', "sh", fifo]);
    expect(await readLimited(fifo, 4096)).toBe("act_token");
    await writer.exited;
    await expect(readLimited(dir, 4096)).rejects.toThrow();
  });

  test("invalid UTF-8 arrives as U+FFFD", async () => {
    const file = join(dir, "bytes");
    writeFileSync(file, Buffer.from([0x61, 0xff, 0x62]));
    expect(await readLimited(file, 10)).toBe("a\ufffdb");
  });
});

describe("readFlagInput", () => {
  test("too large and unreadable are INVALID_INPUT naming the flag and the file", async () => {
    const tooLarge = await readFlagInput(ctx, "--body-file", "/dev/zero", 1024).catch((e: unknown) => e);
    expect(tooLarge).toBeInstanceOf(AppError);
    expect((tooLarge as AppError).code).toBe("INVALID_INPUT");
    expect((tooLarge as AppError).message).toBe('--body-file: "/dev/zero" holds more than 1024 bytes');
    const missing = await readFlagInput(ctx, "--data-file", join(dir, "nope"), 1024).catch((e: unknown) => e);
    expect((missing as AppError).message).toBe(`--data-file: cannot read ${JSON.stringify(join(dir, "nope"))}`);
  });

  test("a path with control characters is shown escaped", async () => {
    const error = await readFlagInput(ctx, "--file", "/tmp/\u001b[2Jx", 10).catch((e: unknown) => e);
    expect((error as AppError).message).not.toContain("\u001b");
    expect((error as AppError).message).toContain("\\u001b[2Jx");
  });
});
