// A PgBouncer of the test's own in transaction pooling mode, in front of the test server: config and auth_file in
// a temp dir, listening on a free loopback port, stopped by stop(). Debian's pgbouncer package; it refuses to run
// as root, so under root it drops to nobody (-u), which is why its files are world-readable (the password is the
// test role's, which the test URL carries anyway).
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const PGBOUNCER = "/usr/sbin/pgbouncer";

export interface PgBouncer {
  /** `serverUrl` with PgBouncer's host and port. */
  url: string;
  stop(): Promise<void>;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });

const accepting = async (port: number): Promise<boolean> => {
  try {
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
};

const quoted = (text: string): string => `"${text.replaceAll('"', '""')}"`;

/**
 * authType "trust": clients log in without a password (a pooler on the agents' own host, reachable from loopback
 * only), which spares every short-lived client the scram-sha-256 exchange; the pooler still logs in to the server
 * with the password from its auth_file.
 */
export const startPgBouncer = async (
  serverUrl: string,
  { authType = "scram-sha-256" }: { authType?: "scram-sha-256" | "trust" } = {},
): Promise<PgBouncer> => {
  const server = new URL(serverUrl);
  const dir = mkdtempSync(join(tmpdir(), "ac-pgbouncer-"));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const userlist = join(dir, "userlist.txt");
  writeFileSync(userlist, `${quoted(decodeURIComponent(server.username))} ${quoted(decodeURIComponent(server.password))}\n`, {
    mode: 0o644,
  });
  const ini = join(dir, "pgbouncer.ini");
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = host=${server.hostname} port=${server.port || "5432"}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      `auth_type = ${authType}`,
      `auth_file = ${userlist}`,
      "pool_mode = transaction",
      "max_client_conn = 200",
      "default_pool_size = 10",
      "log_connections = 0",
      "log_disconnections = 0",
      "",
    ].join("\n"),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  // Its log goes to a file this process opens: a pipe nobody reads would fill up and stall the pooler.
  const log = join(dir, "pgbouncer.log");
  const child = Bun.spawn([PGBOUNCER, ...(asRoot ? ["-u", "nobody"] : []), ini], {
    stdout: Bun.file(log),
    stderr: Bun.file(log),
  });
  const deadline = Date.now() + 30_000;
  while (!(await accepting(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`pgbouncer did not start: ${await Bun.file(log).text()}`);
    }
    await Bun.sleep(50);
  }
  const url = new URL(serverUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    stop: async () => {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
};
