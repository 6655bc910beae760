// A PostgreSQL 15 instance of the bench's own (initdb in a temp dir, loopback only, run as the postgres user), for
// the 100-host simulation: it needs up to five connections a host, more than a shared server should give one
// bench, and pg_stat_statements preloaded, which a shared server may not have. Root only.
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

const PG_BIN = "/usr/lib/postgresql/15/bin";
const USER = "ac";
export const DATABASE = "agent_computer";

export const whyNoOwnPostgres = (): string | undefined => {
  if (process.getuid?.() !== 0) return "not root: the bench's own PostgreSQL runs as the postgres user";
  if (!existsSync(join(PG_BIN, "initdb"))) return `no PostgreSQL 15 binaries in ${PG_BIN}`;
  return undefined;
};

const asPostgres = async (args: string[]): Promise<void> => {
  const r = await execa("runuser", ["-u", "postgres", "--", ...args], { reject: false, timeout: 120_000 });
  if (r.exitCode !== 0) throw new Error(`${args.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
};

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

export interface OwnPostgres {
  url: string;
  /** The postmaster's pid: its children are every server process (backends, walwriter, checkpointer, …). */
  postmasterPid(): number;
  maxConnections: number;
  stop(): Promise<void>;
}

export const startOwnPostgres = async (maxConnections: number): Promise<OwnPostgres> => {
  const dir = mkdtempSync(join(process.env.AC_TEST_SYSTEM_TMPDIR || tmpdir(), "ac-bench-pg-"));
  // The postgres user passes through the temp dir to its data directory (0700, its own).
  chmodSync(dir, 0o711);
  const data = join(dir, "pg");
  mkdirSync(data, { mode: 0o700 });
  const uid = Number((await execa("id", ["-u", "postgres"])).stdout);
  const gid = Number((await execa("id", ["-g", "postgres"])).stdout);
  chownSync(data, uid, gid);
  const pgCtl = (args: string[]) => asPostgres([join(PG_BIN, "pg_ctl"), "-D", data, "-w", "-t", "60", ...args]);
  try {
    await asPostgres([join(PG_BIN, "initdb"), "-D", data, "-U", USER, "--auth=trust", "--no-locale", "-E", "UTF8"]);
    const port = await freePort();
    writeFileSync(join(data, "pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\n");
    // The server's defaults otherwise (fsync and synchronous commit on), as a team's server would run.
    writeFileSync(
      join(data, "postgresql.auto.conf"),
      [
        "listen_addresses = '127.0.0.1'",
        `port = ${port}`,
        `unix_socket_directories = '${data}'`,
        `max_connections = ${maxConnections}`,
        "shared_preload_libraries = 'pg_stat_statements'",
        "pg_stat_statements.track = 'all'",
        "",
      ].join("\n"),
    );
    for (const file of ["pg_hba.conf", "postgresql.auto.conf"]) chownSync(join(data, file), uid, gid);
    await pgCtl(["-l", join(data, "server.log"), "start"]);
    const url = `postgres://${USER}@127.0.0.1:${port}/postgres`;
    const admin = new Bun.SQL({ url, max: 1 });
    await admin.unsafe(`CREATE DATABASE ${DATABASE}`);
    // In the postgres database, where the bench watches from: its view shows every database's statements.
    await admin.unsafe("CREATE EXTENSION pg_stat_statements");
    await admin.close();
    return {
      url: url.replace(/\/postgres$/, `/${DATABASE}`),
      postmasterPid: () => Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]),
      maxConnections,
      stop: async () => {
        await pgCtl(["-m", "fast", "stop"]).catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (existsSync(join(data, "postmaster.pid"))) await pgCtl(["-m", "immediate", "stop"]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
};

/** CPU time (user + system, ms) of a process and every descendant of it that is running now, from /proc. */
export const treeCpuMs = (rootPid: number): number => {
  const ticks = 100; // USER_HZ on Linux
  const children = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // The command name may hold spaces and parentheses: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    cpu.set(Number(entry), ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks);
  }
  let total = 0;
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    total += cpu.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
};
