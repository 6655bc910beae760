// The process is the point: what a user sees when the environment, not the program, is wrong. A store file
// holding garbage, a PostgreSQL URL with a wrong password, an unknown database, TLS the server lacks, a setting
// the driver refuses, a closed port, a host that does not resolve, and a worker --host that cannot be bound each
// get their own code and exit status with the cause and what to do; never "this is a bug", never the password.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { type BinResult, runBin } from "../helpers/bin.ts";
import { pgUrl } from "../helpers/stores.ts";

const root = mkdtempSync(join(tmpdir(), "ac-env-errors-"));

/** stderr of a failed call: the code and exit status asked for, no stdout, no "bug". */
const expectFailure = (result: BinResult, code: string, exitCode: number): string => {
  expect({ exitCode: result.exitCode, stdout: result.stdout }).toEqual({ exitCode, stdout: "" });
  expect(result.stderr).toContain(`: ${code}: `);
  expect(result.stderr).not.toMatch(/bug|INTERNAL| {4}at /);
  return result.stderr;
};

describe("a store file that is not a store", () => {
  const home = join(root, "garbage");
  mkdirSync(home, { mode: 0o700 });
  const file = join(home, "agent-computer.sqlite");
  writeFileSync(file, "garbage, not an SQLite database ".repeat(300), { mode: 0o600 });
  const env = { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: undefined };

  test("agents-list-cli says STORE_CORRUPT (exit 2), names the file and how to set it aside", async () => {
    const stderr = expectFailure(await runBin("agents-list-cli", [], { env }), "STORE_CORRUPT", 2);
    expect(stderr).toContain(`STORE_CORRUPT: the store file ${file} is not an SQLite database`);
    expect(stderr).toContain("move the file aside together with its -wal and -shm files");
  });

  test("agent-inbox-cli --json carries the code and the file", async () => {
    const result = await runBin("agent-inbox-cli", ["--agent-id", "a1", "--json"], { env });
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: "STORE_CORRUPT", file } });
  });
});

/** A loopback port nobody listens on (taken from the kernel, then given back). */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
};

describe.skipIf(!pgUrl)("PostgreSQL settings that cannot work [postgres]", () => {
  // Collected even when skipped: a placeholder keeps the collection from failing without a database.
  const real = new URL(pgUrl ?? "postgres://unset@127.0.0.1/unset");
  const PASSWORD = "Wr0ng-pa55word-4c1e";
  const withUrl = (change: (url: URL) => void): Record<string, string | undefined> => {
    const url = new URL(real);
    change(url);
    return { AGENT_COMPUTER_DATABASE_URL: url.toString(), AGENT_COMPUTER_HOME: join(root, "pg-unused") };
  };
  const list = (env: Record<string, string | undefined>, ...args: string[]) => runBin("agents-list-cli", args, { env });

  test("a wrong password is STORE_AUTH (exit 2) naming the server, never the password", async () => {
    const env = withUrl((url) => {
      url.password = PASSWORD;
    });
    const stderr = expectFailure(await list(env), "STORE_AUTH", 2);
    expect(stderr).toContain(
      "STORE_AUTH: the PostgreSQL server named by AGENT_COMPUTER_DATABASE_URL refused the login: password authentication failed",
    );
    expect(stderr).toContain("correct the user and password in AGENT_COMPUTER_DATABASE_URL");
    expect(stderr).not.toContain(PASSWORD);
    const json = await list(env, "--json");
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: "STORE_AUTH", variable: "AGENT_COMPUTER_DATABASE_URL" } });
    expect(json.stderr).not.toContain(PASSWORD);
  });

  test("an unknown database is CONFIG_INVALID naming it and how to create it", async () => {
    const stderr = expectFailure(
      await list(
        withUrl((url) => {
          url.pathname = "/no_such_database_h17";
        }),
      ),
      "CONFIG_INVALID",
      2,
    );
    expect(stderr).toContain(
      'the database "no_such_database_h17" named by AGENT_COMPUTER_DATABASE_URL does not exist on its server',
    );
    expect(stderr).toContain("createdb no_such_database_h17");
  });

  test("sslmode=require against a server without TLS is CONFIG_INVALID saying so", async () => {
    const stderr = expectFailure(
      await list(
        withUrl((url) => {
          url.searchParams.set("sslmode", "require");
        }),
      ),
      "CONFIG_INVALID",
      2,
    );
    expect(stderr).toContain("does not accept TLS, but the URL requires it (sslmode=require)");
    expect(stderr).not.toContain(real.password);
  });

  test("a setting the driver refuses, and a URL that does not parse, are CONFIG_INVALID", async () => {
    const bogus = expectFailure(
      await list(
        withUrl((url) => {
          url.searchParams.set("sslmode", "bogus");
        }),
      ),
      "CONFIG_INVALID",
      2,
    );
    expect(bogus).toContain("AGENT_COMPUTER_DATABASE_URL has an invalid setting: The argument 'sslmode' must be one of");
    const broken = `postgres://${real.username}:${PASSWORD}@[::1/db`;
    const unparsed = expectFailure(await list({ AGENT_COMPUTER_DATABASE_URL: broken }), "CONFIG_INVALID", 2);
    expect(unparsed).not.toContain(PASSWORD);
  });

  test("a closed port is STORE_UNAVAILABLE (exit 8, retryable) naming neither the password nor the host and port", async () => {
    const port = await closedPort();
    const stderr = expectFailure(
      await list(
        withUrl((url) => {
          url.hostname = "127.0.0.1";
          url.port = String(port);
          url.password = PASSWORD;
        }),
      ),
      "STORE_UNAVAILABLE",
      8,
    );
    expect(stderr).toContain(
      "STORE_UNAVAILABLE: cannot reach the PostgreSQL server named by AGENT_COMPUTER_DATABASE_URL: Failed to connect",
    );
    expect(stderr).not.toContain(PASSWORD);
    expect(stderr).not.toContain(`127.0.0.1:${port}`);
  });

  test("a host name that does not resolve is STORE_UNAVAILABLE naming the host", async () => {
    const stderr = expectFailure(
      await list(
        withUrl((url) => {
          url.hostname = "no-such-host.invalid";
        }),
      ),
      "STORE_UNAVAILABLE",
      8,
    );
    expect(stderr).toContain("its host name no-such-host.invalid does not resolve");
  });
});

describe("a worker --host that cannot be bound is INVALID_INPUT naming the flag", () => {
  const env = { AGENT_COMPUTER_HOME: join(root, "worker"), AGENT_COMPUTER_DATABASE_URL: undefined };
  test.each([
    ["-", "--host: must be an IP address or a host name"],
    ["..", "--host: must be an IP address or a host name"],
    ["999.1.1.1", "--host: must be an IP address or a host name"],
    // TEST-NET-1 (RFC 5737): never an address of this machine.
    ["192.0.2.1", "--host: cannot listen on 192.0.2.1: not an address of this machine"],
  ])("--host %s", async (host, message) => {
    const stderr = expectFailure(await runBin("agent-computer-worker", ["--once", "--host", host], { env }), "INVALID_INPUT", 2);
    expect(stderr).toContain(message);
  });
});

describe("a token vault that cannot be written never loses a token just minted", () => {
  test("agent-checkin-cli registers, prints the token once with a warning, and the token works", async () => {
    const home = join(root, "vault-blocked");
    mkdirSync(home, { mode: 0o700 });
    // The vault directory's place is taken by a file: the store takes the registration, the vault cannot.
    writeFileSync(join(home, "tokens"), "");
    const env = { AGENT_COMPUTER_HOME: home, AGENT_COMPUTER_DATABASE_URL: undefined };
    const checkin = await runBin("agent-checkin-cli", ["--agent-id", "minted", "--confirm", "--json"], { env });
    expect(checkin.exitCode).toBe(0);
    const out = checkin.json<{ agent_token: string; auth_note: string; warning: string; vault_file?: string }>();
    expect(out.agent_token).toMatch(/^act_/);
    expect(out.vault_file).toBeUndefined();
    expect(out.warning).toContain(`the token was not saved to the vault in ${join(home, "tokens")}`);
    expect(out.auth_note).toContain("It could NOT be saved to the token vault");
    const human = await runBin("register-agent-cli", ["--agent-id", "minted-2", "--role", "r", "--capabilities", "c"], {
      env,
    });
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain("agent token (shown once): act_");
    expect(human.stderr).toContain("register-agent-cli: warning: the token was not saved to the vault");
    const inbox = await runBin("agent-inbox-cli", ["--agent-id", "minted"], {
      env: { ...env, RELAY_AGENT_TOKEN: out.agent_token },
    });
    expect(inbox.exitCode).toBe(0);
  });
});
