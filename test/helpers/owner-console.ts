// The console's routes in process, as its owner's browser reaches them (the console cookie set), over a store a test
// filled itself: for suites that read the console's pages without starting a worker. close() removes its state dir.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cookieName } from "../../app/agent_computer/src/console/access.ts";
import { consoleRoutes } from "../../app/agent_computer/src/console/routes.ts";
import { newId } from "../../app/agent_computer/src/domain/ids.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";
import type { Store } from "../../app/agent_computer/src/store/port.ts";

const BASE = "http://127.0.0.1:8787";
const TOKEN = "console-token-for-tests-0123456789abcdef";

export interface OwnerConsole {
  /** A GET as the owner's browser sends it. */
  get(path: string): Promise<Response | undefined>;
  close(): void;
}

export const ownerConsole = (store: Store, humanAgentId = "human-tester"): OwnerConsole => {
  const home = mkdtempSync(join(tmpdir(), "ac-console-owner-"));
  const routes = consoleRoutes({
    bindHost: "127.0.0.1",
    localUrl: () => BASE,
    token: TOKEN,
    env: {},
    paths: resolvePaths({ AGENT_COMPUTER_HOME: home }),
    humanAgentId,
    deps: {
      store,
      now: () => Date.now(),
      host: "test-host",
      newId,
      limits: { rule: () => null, broadcastMaxRecipients: () => 1000 },
    },
    logError: (msg) => {
      throw new Error(msg);
    },
  });
  return {
    get: async (path) => {
      const url = new URL(path, BASE);
      const headers = { host: "127.0.0.1:8787", cookie: `${cookieName(BASE)}=${TOKEN}` };
      return routes[url.pathname]?.GET?.(new Request(url.href, { headers }));
    },
    close: () => rmSync(home, { recursive: true, force: true }),
  };
};
