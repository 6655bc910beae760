// On PostgreSQL a command opens its store first to read the server's clock; a call that reads only this host's files
// (herdr-lease-cli bridge-status, herdr-agent-control receipts, agent-wake-cli's status) must not wait on it. The
// server here accepts connections and never answers, as a hung or firewalled one does (the driver gives up on it only
// after 5 s); they never connect.
import { afterAll, beforeAll, expect, test } from "vitest";
import { runBin } from "../helpers/bin.ts";

let silent: Bun.TCPSocketListener | undefined;
let connections = 0;
beforeAll(() => {
  silent = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: () => {
        connections += 1;
      },
      data: () => {},
    },
  });
});
afterAll(() => silent?.stop(true));

const timed = async (name: string, args: string[]) => {
  const started = performance.now();
  const result = await runBin(name, args, {
    env: {
      ...process.env,
      AGENT_COMPUTER_DATABASE_URL: `postgres://u:secret@127.0.0.1:${silent?.port}/db`,
      AGENT_CONTROL_CONTROLLER_ID: "proj.ctl",
    },
  });
  return { ...result, ms: performance.now() - started };
};

test("with a PostgreSQL server that never answers, the status calls that need no store answer at once", async () => {
  const [bridge, wake, receipts] = await Promise.all([
    timed("herdr-lease-cli", ["bridge-status", "--json"]),
    timed("agent-wake-cli", ["--json"]),
    timed("herdr-agent-control", ["receipts", "--json"]),
  ]);
  expect(receipts.exitCode, receipts.stderr).toBe(0);
  expect(receipts.json()).toEqual({ controller_id: "proj.ctl", receipts: [] });
  expect(bridge.exitCode, bridge.stderr).toBe(0);
  expect(bridge.json()).toHaveProperty("reservation_locks");
  expect(wake.exitCode, wake.stderr).toBe(0);
  expect(wake.json()).toMatchObject({ outcome: "status", watcher: null });
  // Neither so much as connected: before, each waited out the driver's 5 s connect timeout first.
  expect(connections).toBe(0);
  expect(Math.max(bridge.ms, wake.ms, receipts.ms)).toBeLessThan(30_000);
});
