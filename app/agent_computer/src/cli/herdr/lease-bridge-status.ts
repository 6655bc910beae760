import * as z from "zod/mini";
import { bridgeStatus } from "../../domain/herdr/inventory.ts";
import { herdrStateDirs } from "../../local/herdr-state.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";

export const bridgeStatusOptionsSchema = z.object({});
export type BridgeStatusOptions = z.output<typeof bridgeStatusOptionsSchema>;
type BridgeStatus = ReturnType<typeof bridgeStatus>;

const runBridgeStatus = async (_options: BridgeStatusOptions, { ctx, ...deps }: DepsOf<"store">): Promise<BridgeStatus> => {
  return bridgeStatus({ dirs: herdrStateDirs(ctx.paths), hostId: deps.local.hostId, now: deps.now() });
};

export default defineCommand({
  name: "herdr-lease-cli bridge-status",
  summary: "capabilities and the state of every host-local reservation lock (read-only)",
  description:
    "Each reservation lock (controller, reviewer, writer, adopted, receipts) is absent, active (held by a running process " +
    "of this host), stale (its holder is gone: dead pid, reused pid by start time, or a reboot by boot id; the next taker " +
    "moves it aside) or indeterminate (held from another host sharing this state dir, or unverifiable without boot id " +
    "and start time: never taken over on a guess; inspect it before any manual recovery). No owner pid, lock id or " +
    "credential is shown. Needs no store, no Herdr and no lease.",
  schema: bridgeStatusOptionsSchema,
  writes: "nothing.",
  output:
    '{"name","protocol","capabilities":[],"process_binding":"linux-procfs|unavailable","reservation_locks":{"controller"|' +
    '"reviewer"|"writer"|"adopted"|"receipts":{"state":"absent|active|stale|indeterminate","reason"}}}',
  errors: ["INVALID_INPUT", "INTERNAL"],
  env: ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_HOST_ID"],
  examples: ["herdr-lease-cli bridge-status", "herdr-lease-cli bridge-status --json | jq .reservation_locks"],
  needs: { deps: "store", usesStore: () => false },
  run: runBridgeStatus,
  render: (r) =>
    [
      `${r.name} protocol ${r.protocol}; process binding: ${r.process_binding}`,
      ...Object.entries(r.reservation_locks).map(([name, lock]) => `  ${name}: ${lock.state} (${lock.reason})`),
    ].join("\n"),
});
