// An unusable state directory or database URL is a configuration error that names the variable and what is
// wrong with it (CONFIG_INVALID, exit 2), never INTERNAL ("a bug"). Opens the real store in process.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { ERROR_CODES, isAppError } from "../../app/agent_computer/src/errors.ts";
import { openStore } from "../../app/agent_computer/src/store/open.ts";

const root = mkdtempSync(join(tmpdir(), "ac-config-"));
const aFile = join(root, "a-file");
writeFileSync(aFile, "not a directory\n");

/** The error openStore rejects with, as --json would print it. */
const openError = async (env: Record<string, string | undefined>) => {
  const error = await openStore(env).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
  return { exitCode: error.exitCode, ...(error.toJSON().error as { code: string; message: string; hint?: string }) };
};

describe("an unusable state directory is CONFIG_INVALID naming the variable", () => {
  test("AGENT_COMPUTER_HOME is a regular file", async () => {
    const e = await openError({ AGENT_COMPUTER_HOME: aFile });
    expect(e).toMatchObject({ code: "CONFIG_INVALID", exitCode: 2, variable: "AGENT_COMPUTER_HOME" });
    expect(e.message).toBe(`AGENT_COMPUTER_HOME=${aFile}: ${aFile} exists and is not a directory`);
    expect(e.hint).not.toContain("bug");
  });

  // Tests run as root, which ignores permission bits; a path under a regular file fails for every user.
  test("AGENT_COMPUTER_HOME lies under a regular file", async () => {
    const under = join(aFile, "state");
    const e = await openError({ AGENT_COMPUTER_HOME: under });
    expect(e).toMatchObject({ code: "CONFIG_INVALID", exitCode: 2 });
    expect(e.message).toBe(
      `AGENT_COMPUTER_HOME=${under}: ${aFile} is a file, not a directory, so ${under} cannot be created under it`,
    );
  });

  test("without AGENT_COMPUTER_HOME the message names the variable the directory came from", async () => {
    const e = await openError({ XDG_STATE_HOME: aFile, HOME: root });
    expect(e).toMatchObject({ code: "CONFIG_INVALID", variable: "XDG_STATE_HOME" });
    expect(e.message).toContain(`(the state directory under XDG_STATE_HOME=${aFile})`);
  });

  test("a usable directory still opens (the check costs nothing on the normal path)", async () => {
    const home = join(root, "fine");
    mkdirSync(home);
    const store = await openStore({ AGENT_COMPUTER_HOME: home });
    await store.close();
  });

  test("AGENT_COMPUTER_DATABASE_URL that is not a postgres URL is CONFIG_INVALID, not a retryable outage", async () => {
    const e = await openError({ AGENT_COMPUTER_HOME: root, AGENT_COMPUTER_DATABASE_URL: "not-a-url" });
    expect(e).toMatchObject({ code: "CONFIG_INVALID", exitCode: 2, variable: "AGENT_COMPUTER_DATABASE_URL" });
    expect(ERROR_CODES.CONFIG_INVALID.exit).toBe(2);
  });
});
