// Starts a leased agent in a dedicated, unfocused tab. The lease is recorded (provisioning) before the tab
// exists and updated with the pane before the agent starts, so a crash leaves an inspectable record. Only
// agent_pane_busy on that same pane is retried (a new tab's shell may not be ready yet), within a bounded
// window; any other failure closes exactly the pane this start created.
import { type HerdrAgentKind, isHerdrError } from "../../adapters/herdr/client.ts";
import { AppError } from "../../errors.ts";
import type { ControllerAuthority } from "./controller-authority.ts";
import { sameDirectory } from "./directories.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { herdrFailure, viaHerdr } from "./herdr-failure.ts";
import { type LeaseRecord, saveLease } from "./leases.ts";

export interface StartPlan {
  kind: HerdrAgentKind;
  workspaceId: string;
  args: readonly string[];
  startTimeoutMs: number;
  /** How long agent_pane_busy on the new pane is retried. */
  busyWindowMs: number;
}

const BUSY_RETRY_INTERVAL_MS = 100;
const FIRST_RUN_POLL_MS = 500;

/**
 * Herdr 0.8.2+ answers agent_not_ready at once when the started agent comes up blocked: a first-run screen (trust
 * this directory, sign in, an update dialog). The agent keeps its name; once a human answers, detection sees it idle
 * and it is ready. Wait for that within the start timeout, then say what the human must do.
 */
const waitOutFirstRun = async (deps: HerdrDeps, lease: LeaseRecord, paneId: string, plan: StartPlan, began: number) => {
  for (;;) {
    const agent = await viaHerdr(deps.herdr.getAgent(paneId));
    if (agent.status === "idle" || agent.status === "done") return;
    if (deps.now() - began + FIRST_RUN_POLL_MS > plan.startTimeoutMs) {
      throw new AppError(
        "HERDR_REFUSED",
        `${plan.kind} in pane ${paneId} stayed on a screen that waits for a human (agent_not_ready, ${agent.status}) for the whole start timeout (${plan.startTimeoutMs} ms); the pane was closed`,
        {
          hint: `run ${plan.kind} once yourself in ${lease.cwd} and answer its first-run screen (trust this directory, sign in, update), or answer it on the agent's screen in Herdr within the start timeout; then start again`,
        },
      );
    }
    await deps.sleep(FIRST_RUN_POLL_MS);
  }
};

const startWithBusyRetry = async (deps: HerdrDeps, lease: LeaseRecord, paneId: string, plan: StartPlan): Promise<void> => {
  const began = deps.now();
  for (;;) {
    try {
      await deps.herdr.startAgent({
        name: lease.agent_name,
        kind: plan.kind,
        paneId,
        timeoutMs: plan.startTimeoutMs,
        args: plan.args,
      });
      return;
    } catch (error) {
      if (isHerdrError(error, "not_ready") && error.herdrCode === "agent_not_ready") {
        return waitOutFirstRun(deps, lease, paneId, plan, began);
      }
      const busy = isHerdrError(error, "agent_pane_busy");
      if (!busy || deps.now() - began + BUSY_RETRY_INTERVAL_MS > plan.busyWindowMs) throw herdrFailure(error);
      await deps.sleep(BUSY_RETRY_INTERVAL_MS);
    }
  }
};

/** Closes the pane a failed start created: failed_closed when it is gone, orphaned (still held) when not. */
const cleanUp = async (deps: HerdrDeps, lease: LeaseRecord, failure: string): Promise<LeaseRecord> => {
  if (!lease.pane_id) return saveLease(deps.dirs, { ...lease, state: "failed_closed", failure }, deps.now());
  try {
    await deps.herdr.closePane(lease.pane_id);
    return saveLease(deps.dirs, { ...lease, state: "failed_closed", failure }, deps.now());
  } catch (error) {
    const state = isHerdrError(error, "not_found") ? "failed_closed" : "orphaned";
    return saveLease(deps.dirs, { ...lease, state, failure }, deps.now());
  }
};

export const startInDedicatedTab = async (
  deps: HerdrDeps,
  authority: ControllerAuthority,
  provisioning: LeaseRecord,
  plan: StartPlan,
  onEnd: (lease: LeaseRecord) => Promise<void> = async () => {},
): Promise<LeaseRecord> => {
  let lease = provisioning;
  try {
    await authority.verify();
    const created = await viaHerdr(
      deps.herdr.createTab({ cwd: lease.cwd, label: lease.agent_name, workspaceId: plan.workspaceId }),
    );
    lease = saveLease(
      deps.dirs,
      { ...lease, pane_id: created.rootPane.paneId, workspace_id: created.tab.workspaceId },
      deps.now(),
    );
    await authority.verify();
    await startWithBusyRetry(deps, lease, created.rootPane.paneId, plan);
    const agent = await viaHerdr(deps.herdr.getAgent(created.rootPane.paneId));
    const exact =
      agent.paneId === created.rootPane.paneId &&
      agent.name === lease.agent_name &&
      agent.kind === plan.kind &&
      sameDirectory(agent.cwd, lease.cwd);
    if (!exact)
      throw new AppError("IDENTITY_CHANGED", "the started agent is not the one asked for (name, kind, pane or cwd differ)");
    lease = saveLease(deps.dirs, { ...lease, state: "active", terminal_id: agent.terminalId }, deps.now());
    await onEnd(lease);
    return lease;
  } catch (error) {
    const code = error instanceof AppError ? error.code : "INTERNAL";
    await onEnd(await cleanUp(deps, lease, code));
    throw error;
  }
};
