// Test hosts on one machine: each is a network namespace with a veth link to the root namespace, its own UTS
// namespace (host name), host id (AGENT_COMPUTER_HOST_ID), HOME and state directory. They share one PostgreSQL
// instance of the suite's own (initdb in a temporary directory, listening only on the root ends of their links and
// on 127.0.0.1 for the test itself), so the machine's own cluster is never touched. Root only; everything made here
// is named with a prefix and the owning test process's pid, swept at the next start if that process died.
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { workerStarted } from "./automation.ts";
import { type BinResult, binaryForm, binPath, binResult, repoRoot } from "./bin.ts";

const PG_BIN = "/usr/lib/postgresql/15/bin";
/** Namespaces are `acmh-<pid>-<n>`, root link ends `acm<pid>r<n>`, state under /tmp/acmh-<pid>-*. */
const PREFIX = "acmh";
// The system's temp dir, not the test file's own (test/setup/isolate-home.ts): PostgreSQL's user must reach the
// data directory through it, and a later run's sweep must find what a killed run left.
const stateRoot = (): string => process.env.AC_TEST_SYSTEM_TMPDIR || tmpdir();
const LINK_PREFIX = "acm";
/** The private range the links take addresses from: 10.213.<block + n>.0/24, block a multiple of 4 that is free. */
const NET = "10.213";

/** Why this machine cannot make test hosts, or undefined when it can. */
export const whyNoNamespaces = (): string | undefined => {
  if (process.getuid?.() !== 0) return "not root: network namespaces need CAP_NET_ADMIN";
  if (!existsSync(join(PG_BIN, "initdb"))) return `no PostgreSQL 15 binaries in ${PG_BIN}`;
  const ip = Bun.spawnSync(["ip", "netns", "list"]);
  if (ip.exitCode !== 0) return "`ip netns` does not work here (install iproute2)";
  return undefined;
};

const sh = async (command: string, args: string[], options: { input?: string } = {}): Promise<string> => {
  const r = await execa(command, args, { reject: false, input: options.input, timeout: 60_000 });
  if (r.exitCode !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
  return String(r.stdout);
};
const quietly = (command: string, args: string[]) => execa(command, args, { reject: false, timeout: 30_000 });

const pidAlive = (pid: number): boolean => existsSync(`/proc/${pid}`);
const asPostgres = (args: string[]) => sh("runuser", ["-u", "postgres", "--", ...args]);

/** Removes what a test process that died left behind: namespaces, links, UTS files, its PostgreSQL. */
export const sweepLeftovers = async (): Promise<void> => {
  const owner = (name: string, pattern: RegExp): number | undefined => {
    const m = pattern.exec(name);
    return m && !pidAlive(Number(m[1])) ? Number(m[1]) : undefined;
  };
  for (const line of (await sh("ip", ["-o", "link"])).split("\n")) {
    const name = line.split(": ")[1]?.split("@")[0] ?? "";
    if (owner(name, new RegExp(`^${LINK_PREFIX}(\\d+)r\\d+$`)) !== undefined) await quietly("ip", ["link", "del", name]);
  }
  for (const line of (await sh("ip", ["netns", "list"])).split("\n")) {
    const name = line.split(" ")[0] ?? "";
    if (owner(name, new RegExp(`^${PREFIX}-(\\d+)-\\d+$`)) !== undefined) await quietly("ip", ["netns", "del", name]);
  }
  for (const name of readdirSync(stateRoot())) {
    if (owner(name, new RegExp(`^${PREFIX}-(\\d+)-`)) === undefined) continue;
    const dir = join(stateRoot(), name);
    const pgData = join(dir, "pg");
    if (existsSync(join(pgData, "postmaster.pid")))
      await quietly("runuser", ["-u", "postgres", "--", join(PG_BIN, "pg_ctl"), "-D", pgData, "-m", "immediate", "stop"]);
    for (const file of existsSync(join(dir, "uts")) ? readdirSync(join(dir, "uts")) : [])
      await quietly("umount", [join(dir, "uts", file)]);
    rmSync(dir, { recursive: true, force: true });
  }
};

/** A free block of /24s for `count` links, checked against every IPv4 address and route on this machine. */
const freeBlock = async (count: number): Promise<number> => {
  const used = await sh("ip", ["-4", "-o", "addr"]).then(async (a) => a + (await sh("ip", ["-4", "route"])));
  for (let block = 4; block + count < 252; block += 4) {
    const clashes = Array.from({ length: count }, (_, n) => `${NET}.${block + n + 1}.`).some((net) => used.includes(net));
    if (!clashes && !used.includes(`${NET}.${block}.`)) return block;
  }
  throw new Error(`no free block of ${count} /24s in ${NET}.0.0/16`);
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
  port: number;
  /** The URL a client at `address` (a root link end, or 127.0.0.1) uses. */
  url(address: string): string;
  /** Raw SQL from the test process, on a short-lived connection (survives restarts). */
  sql(text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const DB = "agent_computer";
const USER = "ac";

const startOwnPostgres = async (dir: string, listen: string[], hostNets: string): Promise<OwnPostgres> => {
  const data = join(dir, "pg");
  mkdirSync(data, { mode: 0o700 });
  const uid = Number(await sh("id", ["-u", "postgres"]));
  const gid = Number(await sh("id", ["-g", "postgres"]));
  chownSync(data, uid, gid);
  await asPostgres([join(PG_BIN, "initdb"), "-D", data, "-U", USER, "--auth=trust", "--no-sync", "--no-locale", "-E", "UTF8"]);
  const port = await freePort();
  // Trust only for this instance's own link net and loopback; it listens nowhere else.
  writeFileSync(
    join(data, "pg_hba.conf"),
    `local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ${hostNets} trust\n`,
  );
  writeFileSync(
    join(data, "postgresql.auto.conf"),
    [
      `listen_addresses = '${listen.join(",")}'`,
      `port = ${port}`,
      `unix_socket_directories = '${data}'`,
      "max_connections = 200",
      // A throw-away instance: durability costs time and proves nothing here.
      "fsync = off",
      "synchronous_commit = off",
      "full_page_writes = off",
      "shared_buffers = 32MB",
      "",
    ].join("\n"),
  );
  chownSync(join(data, "pg_hba.conf"), uid, gid);
  chownSync(join(data, "postgresql.auto.conf"), uid, gid);
  const pgCtl = (args: string[]) => asPostgres([join(PG_BIN, "pg_ctl"), "-D", data, "-w", "-t", "60", ...args]);
  const start = () => pgCtl(["-l", join(data, "server.log"), "start"]).then(() => undefined);
  await start();
  await sh(join(PG_BIN, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", USER, DB]);
  const url = (address: string) => `postgres://${USER}@${address}:${port}/${DB}`;
  return {
    port,
    url,
    sql: async (text, params = []) => {
      const db = new Bun.SQL({ url: url("127.0.0.1"), max: 1 });
      try {
        return [...((await db.unsafe(text, params)) as Record<string, unknown>[])];
      } finally {
        await db.close();
      }
    },
    stop: () => pgCtl(["-m", "fast", "stop"]).then(() => undefined),
    start,
  };
};

export interface HostWorker {
  url: string;
  pid: number;
  process: ResultPromise;
  stderr(): string;
  /** Signals the worker's whole process group. */
  kill(signal: NodeJS.Signals): void;
}

export interface TestHost {
  name: string;
  /** Its AGENT_COMPUTER_HOST_ID. */
  hostId: string;
  /** Its end of the link (what its worker binds) and the root end (where PostgreSQL listens for it). */
  address: string;
  rootAddress: string;
  rootLink: string;
  home: string;
  env: Record<string, string>;
  /** Runs a binary on this host (its namespaces, its environment). */
  run(
    bin: string,
    args: readonly string[],
    options?: { input?: string; timeoutMs?: number; env?: Record<string, string> },
  ): Promise<BinResult>;
  startWorker(args?: string[]): Promise<HostWorker>;
  /** Link down at the root end: the host keeps running, cut off from PostgreSQL and every other host. */
  cut(): Promise<void>;
  heal(): Promise<void>;
  /**
   * Its packets to PostgreSQL vanish without an answer (a neighbour entry pointing nowhere), as behind a router whose
   * far side is gone: no refusal and no unreachable error, only silence. "both": the server's packets to it vanish
   * too, so a connection already open hears nothing more.
   */
  silence(direction?: "outbound" | "both"): Promise<void>;
  unsilence(): Promise<void>;
}

export interface TestHosts {
  hosts: TestHost[];
  pg: OwnPostgres;
  /** Every worker started, for teardown. */
  workers: HostWorker[];
  teardown(): Promise<void>;
}

/** The command line that runs `argv` inside a host's network and UTS namespaces. */
const inHost = (ns: string, uts: string, argv: readonly string[]): string[] => [
  `--uts=${uts}`,
  `--net=/run/netns/${ns}`,
  "--",
  ...argv,
];

export const startHosts = async (count: number, extraEnv: Record<string, string> = {}): Promise<TestHosts> => {
  await sweepLeftovers();
  const dir = mkdtempSync(join(stateRoot(), `${PREFIX}-${process.pid}-`));
  // PostgreSQL's own user must pass through to its data directory.
  chmodSync(dir, 0o711);
  mkdirSync(join(dir, "uts"));
  const block = await freeBlock(count);
  const made: { ns: string; link: string; uts: string }[] = [];
  const workers: HostWorker[] = [];
  let pg: OwnPostgres | undefined;
  const teardown = async () => {
    for (const w of workers) w.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.process));
    await pg?.stop().catch(() => undefined);
    for (const { ns, link, uts } of made) {
      await quietly("ip", ["link", "del", link]);
      await quietly("ip", ["netns", "del", ns]);
      await quietly("umount", [uts]);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const hosts: TestHost[] = [];
    for (let n = 1; n <= count; n++) {
      const ns = `${PREFIX}-${process.pid}-${n}`;
      const link = `${LINK_PREFIX}${process.pid}r${n}`;
      const peer = `${LINK_PREFIX}${process.pid}h${n}`;
      const uts = join(dir, "uts", `host-${n}`);
      const rootAddress = `${NET}.${block + n}.1`;
      const address = `${NET}.${block + n}.2`;
      await sh("ip", ["netns", "add", ns]);
      made.push({ ns, link, uts });
      await sh("ip", ["link", "add", link, "type", "veth", "peer", "name", peer]);
      await sh("ip", ["link", "set", peer, "netns", ns]);
      await sh("ip", ["addr", "add", `${rootAddress}/24`, "dev", link]);
      await sh("ip", ["link", "set", link, "up"]);
      await sh("ip", ["-n", ns, "addr", "add", `${address}/24`, "dev", peer]);
      await sh("ip", ["-n", ns, "link", "set", peer, "up"]);
      await sh("ip", ["-n", ns, "link", "set", "lo", "up"]);
      writeFileSync(uts, "");
      const name = `mh-host-${n}`;
      await sh("unshare", [`--uts=${uts}`, "hostname", name]);
      const home = join(dir, name);
      for (const sub of ["home", "state", "xdg-state", "xdg-config", "xdg-cache", "xdg-data"])
        mkdirSync(join(home, sub), { recursive: true });
      hosts.push(hostOf({ n, ns, uts, name, home, address, rootAddress, link, peer, workers, extraEnv }));
    }
    pg = await startOwnPostgres(dir, ["127.0.0.1", ...hosts.map((h) => h.rootAddress)], `${NET}.${block}.0/22`);
    for (const h of hosts) h.env.AGENT_COMPUTER_DATABASE_URL = pg.url(h.rootAddress);
    return { hosts, pg, workers, teardown };
  } catch (error) {
    await teardown();
    throw error;
  }
};

interface HostPlan {
  n: number;
  ns: string;
  uts: string;
  name: string;
  home: string;
  address: string;
  rootAddress: string;
  link: string;
  peer: string;
  workers: HostWorker[];
  extraEnv: Record<string, string>;
}

const hostOf = (plan: HostPlan): TestHost => {
  const { ns, uts, home } = plan;
  const hostId = `${plan.name}-${crypto.randomUUID().slice(0, 8)}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(home, "home"),
    XDG_STATE_HOME: join(home, "xdg-state"),
    XDG_CONFIG_HOME: join(home, "xdg-config"),
    XDG_CACHE_HOME: join(home, "xdg-cache"),
    XDG_DATA_HOME: join(home, "xdg-data"),
    AGENT_COMPUTER_HOME: join(home, "state"),
    AGENT_COMPUTER_HOST_ID: hostId,
    AGENT_COMPUTER_FORM: binaryForm,
    AGENT_COMPUTER_SKILLS_DIR: join(repoRoot, "test", "fixtures", "skills"),
    AGENT_COMPUTER_RATE_REGISTER_PER_NAME: "off",
    AGENT_COMPUTER_RATE_REGISTER_PER_HOST: "off",
    AGENT_COMPUTER_RATE_SEND_PER_NAME: "off",
    AGENT_COMPUTER_RATE_SEND_PER_HOST: "off",
    AGENT_COMPUTER_RATE_DELIVER_PER_NAME: "off",
    AGENT_COMPUTER_RATE_DELIVER_PER_HOST: "off",
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    ...plan.extraEnv,
  };
  const host: TestHost = {
    name: plan.name,
    hostId,
    address: plan.address,
    rootAddress: plan.rootAddress,
    rootLink: plan.link,
    home,
    env,
    run: async (bin, args, options = {}) => {
      const r = await execa("nsenter", inHost(ns, uts, [binPath(bin), ...args]), {
        reject: false,
        env: { ...env, ...options.env },
        extendEnv: false,
        input: options.input,
        stripFinalNewline: false,
        timeout: options.timeoutMs ?? 60_000,
      });
      return binResult(r);
    },
    startWorker: async (args = []) => {
      const argv = [binPath("agent-computer-worker"), "--host", plan.address, "--port", "0", "--json", ...args];
      // Its own process group (nsenter execs the worker), so a kill reaches the worker and nothing else.
      const child = execa("nsenter", inHost(ns, uts, argv), { reject: false, env, extendEnv: false, detached: true });
      const { url, stderr } = await workerStarted(child, `worker on ${plan.name}`, 30_000);
      const worker: HostWorker = {
        url,
        pid: child.pid as number,
        process: child,
        stderr,
        kill: (signal) => {
          try {
            process.kill(-(child.pid as number), signal);
          } catch {
            // The group is gone already.
          }
        },
      };
      plan.workers.push(worker);
      return worker;
    },
    cut: () => sh("ip", ["link", "set", plan.link, "down"]).then(() => undefined),
    heal: () => sh("ip", ["link", "set", plan.link, "up"]).then(() => undefined),
    silence: async (direction = "outbound") => {
      await sh("ip", [
        ...["-n", ns, "neigh", "replace", plan.rootAddress, "lladdr", "02:00:00:00:00:01"],
        ...["dev", plan.peer, "nud", "permanent"],
      ]);
      if (direction === "both") {
        await sh("ip", ["neigh", "replace", plan.address, "lladdr", "02:00:00:00:00:02", "dev", plan.link, "nud", "permanent"]);
      }
    },
    unsilence: async () => {
      await sh("ip", ["-n", ns, "neigh", "del", plan.rootAddress, "dev", plan.peer]);
      // The root end's entry exists only after a silence in both directions.
      await quietly("ip", ["neigh", "del", plan.address, "dev", plan.link]);
    },
  };
  return host;
};
