// The drivers' error tables: each failure of the environment (full disk, damaged or foreign file, read-only store,
// refused login, unknown database, TLS, unreachable server) becomes its own code and exit status with the cause and
// what to do, never INTERNAL "a bug"; neither the URL's password nor its host and port appear in a message. In process, over errors shaped as
// bun:sqlite and Bun.SQL raise them, and over a real store file written with garbage.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type AppError, diskFullElsewhere, ERROR_CODES, isAppError } from "../../app/agent_computer/src/errors.ts";
import { openStore } from "../../app/agent_computer/src/store/open.ts";
import { UniqueViolation } from "../../app/agent_computer/src/store/port.ts";
import { classifyPostgresError } from "../../app/agent_computer/src/store/postgres/error-mapping.ts";
import { classifySqliteError } from "../../app/agent_computer/src/store/sqlite/error-mapping.ts";

const FILE = "/srv/state/agent-computer.sqlite";
const sqliteError = (code: string, message = "driver says so") => Object.assign(new Error(message), { code });

describe("SQLite failures map to their own codes", () => {
  test.each([
    ["SQLITE_FULL", "DISK_FULL", 8, "no space left on the disk holding /srv/state"],
    ["ENOSPC", "DISK_FULL", 8, "no space left on the disk holding /srv/state"],
    ["SQLITE_NOTADB", "STORE_CORRUPT", 2, `the store file ${FILE} is not an SQLite database`],
    ["SQLITE_CORRUPT", "STORE_CORRUPT", 2, `the store file ${FILE} is damaged`],
    ["SQLITE_CORRUPT_INDEX", "STORE_CORRUPT", 2, `the store file ${FILE} is damaged`],
    ["SQLITE_READONLY", "STORE_READ_ONLY", 2, `the store file ${FILE} can be read but not written`],
    ["SQLITE_READONLY_DBMOVED", "STORE_READ_ONLY", 2, `the store file ${FILE} can be read but not written`],
    ["SQLITE_IOERR_WRITE", "STORE_UNAVAILABLE", 8, `an I/O error on the store file ${FILE}`],
    ["SQLITE_BUSY", "STORE_UNAVAILABLE", 8, "the SQLite store stayed locked by another process"],
  ])("%s → %s (exit %i)", (driverCode, code, exit, message) => {
    const mapped = classifySqliteError(sqliteError(driverCode), FILE);
    if (!isAppError(mapped)) throw new Error(`${driverCode} stayed ${String(mapped)}`);
    expect({ code: mapped.code, exit: mapped.exitCode }).toEqual({ code, exit });
    expect(mapped.message).toContain(message);
    expect(mapped.hint).toBeTruthy();
    expect(mapped.hint).not.toMatch(/bug/);
  });

  test("the hints say what to do", () => {
    const full = classifySqliteError(sqliteError("SQLITE_FULL"), FILE) as AppError;
    expect(full.hint).toBe(
      "free space there (df -h /srv/state), or set AGENT_COMPUTER_HOME to a directory on another disk; then retry",
    );
    const corrupt = classifySqliteError(sqliteError("SQLITE_NOTADB"), FILE) as AppError;
    expect(corrupt.hint).toContain("move the file aside together with its -wal and -shm files");
  });

  test("a unique violation stays one (services re-read on it); an unknown failure stays itself (a bug)", () => {
    expect(classifySqliteError(sqliteError("SQLITE_CONSTRAINT_UNIQUE"), FILE)).toBeInstanceOf(UniqueViolation);
    const odd = sqliteError("SQLITE_MISUSE");
    expect(classifySqliteError(odd, FILE)).toBe(odd);
  });
});

const PASSWORD = "pw-S3cret-9f2";
const URL_WITH_PASSWORD = `postgres://svc:${PASSWORD}@127.0.0.9:6543/relay?sslmode=require`;
/** A Bun.SQL failure: SQLSTATE in errno, Bun's own code in code. */
const pgError = (fields: { errno?: string; code?: string; message?: string }) =>
  Object.assign(new Error(fields.message ?? "server says no"), { name: "PostgresError", ...fields });

describe("PostgreSQL failures map to their own codes and never show the password", () => {
  test.each([
    [
      { errno: "28P01", code: "ERR_POSTGRES_SERVER_ERROR" },
      "STORE_AUTH",
      2,
      "the PostgreSQL server named by AGENT_COMPUTER_DATABASE_URL refused the login",
    ],
    [{ errno: "28000", code: "ERR_POSTGRES_SERVER_ERROR" }, "STORE_AUTH", 2, "refused the login"],
    [
      { errno: "3D000", code: "ERR_POSTGRES_SERVER_ERROR" },
      "CONFIG_INVALID",
      2,
      'the database "relay" named by AGENT_COMPUTER_DATABASE_URL does not exist on its server',
    ],
    [
      { code: "ERR_POSTGRES_TLS_NOT_AVAILABLE" },
      "CONFIG_INVALID",
      2,
      "does not accept TLS, but the URL requires it (sslmode=require)",
    ],
    [
      { code: "ERR_POSTGRES_TLS_UPGRADE_FAILED" },
      "CONFIG_INVALID",
      2,
      "TLS with the PostgreSQL server named by AGENT_COMPUTER_DATABASE_URL failed",
    ],
    [{ errno: "53100", code: "ERR_POSTGRES_SERVER_ERROR" }, "DISK_FULL", 8, "has no disk space left"],
    [{ errno: "25006", code: "ERR_POSTGRES_SERVER_ERROR" }, "STORE_READ_ONLY", 2, "accepts only reads"],
    [{ errno: "XX001", code: "ERR_POSTGRES_SERVER_ERROR" }, "STORE_CORRUPT", 2, "reports damaged data"],
    [
      { errno: "57P01", code: "ERR_POSTGRES_SERVER_ERROR" },
      "STORE_UNAVAILABLE",
      8,
      "cannot reach the PostgreSQL server named by AGENT_COMPUTER_DATABASE_URL",
    ],
    [
      { code: "ERR_POSTGRES_CONNECTION_CLOSED" },
      "STORE_UNAVAILABLE",
      8,
      "cannot reach the PostgreSQL server named by AGENT_COMPUTER_DATABASE_URL",
    ],
  ])("%j → %s (exit %i)", async (fields, code, exit, message) => {
    // The driver's text quotes the password, as a careless one might: the message still must not.
    const mapped = await classifyPostgresError(pgError({ ...fields, message: `failed for ${PASSWORD}` }), URL_WITH_PASSWORD);
    if (!isAppError(mapped)) throw new Error(`${JSON.stringify(fields)} stayed ${String(mapped)}`);
    expect({ code: mapped.code, exit: mapped.exitCode }).toEqual({ code, exit });
    expect(mapped.message).toContain(message);
    expect(JSON.stringify(mapped.toJSON())).not.toContain(PASSWORD);
    expect(JSON.stringify(mapped.toJSON())).not.toContain("127.0.0.9");
    expect(mapped.hint).not.toMatch(/bug/);
  });

  test("a refused connection to a host name that does not resolve names the host", async () => {
    const url = `postgres://svc:${PASSWORD}@no-such-host.invalid:5432/relay`;
    const mapped = (await classifyPostgresError(pgError({ code: "ERR_POSTGRES_CONNECTION_REFUSED" }), url)) as AppError;
    expect(mapped.code).toBe("STORE_UNAVAILABLE");
    expect(mapped.message).toBe(
      "cannot reach the PostgreSQL server named by AGENT_COMPUTER_DATABASE_URL: its host name no-such-host.invalid does not resolve",
    );
  });

  test("a unique violation stays one; an unknown SQLSTATE stays itself", async () => {
    expect(await classifyPostgresError(pgError({ errno: "23505" }), URL_WITH_PASSWORD)).toBeInstanceOf(UniqueViolation);
    const odd = pgError({ errno: "42P01", code: "ERR_POSTGRES_SERVER_ERROR" });
    expect(await classifyPostgresError(odd, URL_WITH_PASSWORD)).toBe(odd);
  });
});

test("a full disk outside the store (ENOSPC, EDQUOT) is DISK_FULL with the system's message; other errors are not", () => {
  const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  expect(diskFullElsewhere(enospc)?.toJSON()).toEqual({
    error: {
      code: "DISK_FULL",
      message: "no space left on the device (ENOSPC: no space left on device, write)",
      hint: "free space on that file system (df -h), then retry",
    },
  });
  expect(diskFullElsewhere(Object.assign(new Error("quota"), { code: "EDQUOT" }))?.exitCode).toBe(8);
  expect(diskFullElsewhere(Object.assign(new Error("denied"), { code: "EACCES" }))).toBeUndefined();
});

describe("a real store file that is not a store", () => {
  const root = mkdtempSync(join(tmpdir(), "ac-corrupt-"));
  const openError = async (home: string) => {
    const error = await openStore({ AGENT_COMPUTER_HOME: home }).then(
      async (store) => {
        await store.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
    return error;
  };

  test("garbage in the file is STORE_CORRUPT naming the file (exit 2), not INTERNAL", async () => {
    const home = join(root, "garbage");
    mkdirSync(home, { mode: 0o700 });
    writeFileSync(join(home, "agent-computer.sqlite"), "this is not a database ".repeat(400), { mode: 0o600 });
    const error = await openError(home);
    expect(error.code).toBe("STORE_CORRUPT");
    expect(error.exitCode).toBe(ERROR_CODES.STORE_CORRUPT.exit);
    expect(error.message).toBe(`the store file ${join(home, "agent-computer.sqlite")} is not an SQLite database`);
  });
});
