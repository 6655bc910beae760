// Three hosts on one PostgreSQL, for real: each host is a network namespace (test/helpers/netns-hosts.ts) with its
// own host name, host id, HOME, state directory and agent-computer-worker, reaching the suite's own PostgreSQL over
// its link. Agents on the three hosts message each other; triggers fire exactly once across the three workers; a
// worker killed mid-run loses its attempt to another host; a host cut off past a session's ttl is rescued around and
// carries on when its link returns; PostgreSQL restarted under load costs no message; and no host-local fact (pid,
// pane id, boot id, wake registration) reaches the shared database.
import { afterAll, beforeAll, describe, test } from "vitest";
import { HostsUnderTest } from "../helpers/multi-host.ts";
import { whyNoNamespaces } from "../helpers/netns-hosts.ts";
import { killedWorkerRescued, triggersFireOnce } from "./automation-across-hosts.ts";
import { hostCutOff, packetsVanish, silentLink } from "./link-failures.ts";
import { autoWakeAcrossHosts, directoryByHost, messageEachOther } from "./mesh-across-hosts.ts";
import { hostLocalFactsStayLocal, postgresRestart } from "./shared-database.ts";

const noNamespaces = whyNoNamespaces();
if (noNamespaces) {
  console.warn(`SKIPPED: multi-host suite (${noNamespaces})`);
  if (process.env.CI === "true") throw new Error(`CI=true but the multi-host suite cannot run: ${noNamespaces}`);
}

// One set of hosts for every scenario, in this order: later scenarios build on earlier ones (agents checked in,
// workers restarted) and the last looks in the shared database for every host-local fact the others recorded.
describe.skipIf(noNamespaces !== undefined)(
  `three hosts (network namespaces) on one PostgreSQL${noNamespaces ? ` [skipped: ${noNamespaces}]` : ""}`,
  () => {
    const h = new HostsUnderTest();
    beforeAll(h.start, 120_000);
    afterAll(h.teardown, 60_000);

    test("agents on three hosts message each other: every message delivered once, outcomes truthful", () => messageEachOther(h));
    test("the directory says which host each agent is on, and that a remote agent's liveness rests on age", () =>
      directoryByHost(h));
    test("auto-wake across hosts: an agent armed on one host is woken by that host's worker for mail from another", () =>
      autoWakeAcrossHosts(h));
    test("checkbacks, cron ticks and webhook deliveries fire exactly once across the three workers", () => triggersFireOnce(h));
    test("SIGKILL of one host's worker mid-run: another host's worker runs attempt 2; the lost attempt's late write is refused", () =>
      killedWorkerRescued(h));
    test(
      "a host cut off past a session's ttl: its agents turn stale, its runs are rescued, its mail bounces; then it carries on",
      () => hostCutOff(h),
      240_000,
    );
    test("a host whose packets to PostgreSQL vanish: its CLIs exit 8 after their connect timeout instead of hanging", () =>
      packetsVanish(h));
    test("a link that goes silent under an open connection: the CLI exits 8 at the answer deadline, nothing written", () =>
      silentLink(h));
    test(
      "PostgreSQL restarted under load: CLIs exit 8 with the retry hint; every send that succeeded is delivered once; workers resume",
      () => postgresRestart(h),
      180_000,
    );
    test("host-local facts stay on their host: no pid, pane id, boot id or wake registration in the shared database", () =>
      hostLocalFactsStayLocal(h));
  },
);
