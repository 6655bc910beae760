// The process is the point: the state directory on a real file system that fills up (a small tmpfs mounted for
// this file) and then turns read-only. A write says DISK_FULL (exit 8, retryable) or STORE_READ_ONLY (exit 2) and
// writes nothing; a read whose only write is presence still answers, with a warning on stderr and in --json.
// Mounting needs root (or CAP_SYS_ADMIN): without it the suite is skipped with the reason in its title.
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { PRESENCE_WRITE_INTERVAL_MS } from "../../app/agent_computer/src/domain/mesh/live-session.ts";
import { runBin } from "../helpers/bin.ts";

const mountPoint = mkdtempSync(join(tmpdir(), "ac-disk-full-"));

/** Mounts a 4 MiB tmpfs on mountPoint; the reason it could not, or undefined. */
const mountSmallDisk = (): string | undefined => {
  if (process.getuid?.() !== 0) return "not root: mounting a tmpfs needs root";
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", mountPoint], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs not permitted here (${String((error as { stderr?: unknown }).stderr ?? error).trim()})`;
  }
};

const skipReason = mountSmallDisk();

afterAll(() => {
  if (!skipReason) execFileSync("umount", ["-l", mountPoint], { stdio: "pipe" });
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes zeros into `file` until the file system refuses with ENOSPC. */
const fill = (file: string): void => {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
};

const remount = (mode: "ro" | "rw") => execFileSync("mount", ["-o", `remount,${mode}`, mountPoint], { stdio: "pipe" });

describe.skipIf(skipReason)(
  `a state directory on a full, then read-only, disk [tmpfs${skipReason ? `: skipped, ${skipReason}` : ""}]`,
  () => {
    const home = join(mountPoint, "state");
    const filler = join(mountPoint, "filler");
    const env = { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: undefined };
    const run = (name: string, ...args: string[]) => runBin(name, args, { env });

    test("while the disk is full: inbox, sent, thread, contacts show, agents-list and task list answer with a warning; writes are DISK_FULL", async () => {
      mkdirSync(home, { mode: 0o700 });
      expect((await run("agent-checkin-cli", "--agent-id", "reader", "--confirm")).exitCode).toBe(0);
      expect((await run("agent-checkin-cli", "--agent-id", "writer", "--confirm")).exitCode).toBe(0);
      expect(
        (await run("agent-send-cli", "--from", "writer", "--to", "reader", "--body", "before the disk filled")).exitCode,
      ).toBe(0);
      fill(filler);
      // Presence is written at most once a second: past that, every call below is due a presence write (the
      // compiled form runs the first ones within a second of the send, which then had nothing to renew).
      await Bun.sleep(PRESENCE_WRITE_INTERVAL_MS + 100);

      const inbox = await run("agent-inbox-cli", "--agent-id", "reader");
      expect(inbox.exitCode).toBe(0);
      expect(inbox.stdout).toContain("reader: 1 unacknowledged message(s)");
      expect(inbox.stdout).toContain("  | before the disk filled");
      expect(inbox.stderr).toBe(
        `agent-inbox-cli: warning: presence not renewed (DISK_FULL: no space left on the disk holding ${home}; nothing was written)\n`,
      );
      const json = await run("agent-inbox-cli", "--agent-id", "reader", "--json");
      expect(json.exitCode).toBe(0);
      expect(json.json()).toMatchObject({ count: 1, warning: expect.stringContaining("presence not renewed (DISK_FULL:") });
      const messageId = json.json<{ messages: { id: string }[] }>().messages[0]?.id ?? "";

      for (const [name = "", ...args] of [
        ["agent-sent-cli", "--agent-id", "writer"],
        ["agents-list-cli", "--agent-id", "reader"],
        ["agent-task-cli", "list", "--agent-id", "reader"],
        ["agent-thread-cli", "--agent-id", "reader", "--thread", messageId],
        ["agent-contacts-cli", "show", "--agent-id", "reader"],
      ]) {
        const result = await run(name, ...args);
        expect({ name, exitCode: result.exitCode }).toEqual({ name, exitCode: 0 });
        expect(result.stderr).toContain("warning: presence not renewed (DISK_FULL:");
      }

      const send = await run("agent-send-cli", "--from", "writer", "--to", "reader", "--body", "while the disk was full");
      expect(send.exitCode).toBe(8);
      expect(send.stderr).toContain(`agent-send-cli: DISK_FULL: no space left on the disk holding ${home}; nothing was written`);
      expect(send.stderr).toContain(`hint: free space there (df -h ${home})`);
      expect(send.stderr).not.toMatch(/bug/);
      const ack = await run("agent-ack-cli", "--agent-id", "reader", "--up-to-seq", "1");
      expect(ack.exitCode).toBe(8);
      expect(ack.stderr).toContain("DISK_FULL");

      const fresh = await runBin("agents-list-cli", [], { env: { ...env, AGENT_COMPUTER_HOME: join(mountPoint, "fresh") } });
      expect(fresh.exitCode).toBe(8);
      expect(fresh.stderr).toContain("agents-list-cli: DISK_FULL: no space left on the disk holding");
    });

    test("once space is back nothing of the refused writes is there, and writes work again", async () => {
      rmSync(filler);
      const inbox = await run("agent-inbox-cli", "--agent-id", "reader", "--json");
      expect(inbox.exitCode).toBe(0);
      expect(inbox.stderr).toBe("");
      const { messages, warning } = inbox.json<{ messages: { body: string }[]; warning?: string }>();
      // The send was refused and the acknowledgement too: the one message from before is still unacknowledged.
      expect({ bodies: messages.map((m) => m.body), warning }).toEqual({
        bodies: ["before the disk filled"],
        warning: undefined,
      });
      expect((await run("agent-ack-cli", "--agent-id", "reader", "--up-to-seq", "1")).exitCode).toBe(0);
    });

    test("on a read-only file system: reads answer with a warning, writes are STORE_READ_ONLY (exit 2)", async () => {
      expect((await run("agent-send-cli", "--from", "writer", "--to", "reader", "--body", "before read-only")).exitCode).toBe(0);
      remount("ro");
      try {
        const inbox = await run("agent-inbox-cli", "--agent-id", "reader");
        expect(inbox.exitCode).toBe(0);
        expect(inbox.stdout).toContain("  | before read-only");
        expect(inbox.stderr).toContain("agent-inbox-cli: warning: presence not renewed (STORE_READ_ONLY: the store file");
        const send = await run("agent-send-cli", "--from", "writer", "--to", "reader", "--body", "refused");
        expect(send.exitCode).toBe(2);
        expect(send.stderr).toContain(
          `agent-send-cli: STORE_READ_ONLY: the store file ${join(home, "agent-computer.sqlite")} can be read but not written`,
        );
      } finally {
        remount("rw");
      }
    });
  },
);
