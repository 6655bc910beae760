// Who is calling: the Herdr pane this process runs in, the named agent Herdr sees there, and (Linux) the agent
// process to bind. The pane is taken only from Herdr's own HERDR_PANE_ID, never from a flag.
import type { HerdrAgent } from "../../adapters/herdr/client.ts";
import { ancestry, type ProcessIdentity, sameProcess, terminalForegroundGroup } from "../../adapters/process-ancestry.ts";
import { AppError } from "../../errors.ts";
import type { HerdrDeps } from "./herdr-deps.ts";
import { observeAcrossEpochOrFail } from "./herdr-epoch.ts";
import { herdrFailure } from "./herdr-failure.ts";
import { surviving } from "./herdr-reconnect.ts";

export const CONTROLLER_ID_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;

export interface CallerContext {
  controllerId: string;
  paneId: string;
}

const missing = (message: string): AppError =>
  new AppError("CONTROLLER_CONTEXT_MISSING", message, {
    hint: "run inside the coordinator's Herdr pane with AGENT_CONTROL_CONTROLLER_ID set by its launcher",
  });

/** The controller id (AGENT_CONTROL_CONTROLLER_ID) alone, for read-only commands. */
export const controllerIdFrom = (env: Record<string, string | undefined>): string => {
  const id = env.AGENT_CONTROL_CONTROLLER_ID ?? "";
  if (!CONTROLLER_ID_PATTERN.test(id)) throw missing("AGENT_CONTROL_CONTROLLER_ID is unset or not [A-Za-z0-9_.-]{1,100}");
  return id;
};

export const callerContext = (env: Record<string, string | undefined>): CallerContext => {
  const controllerId = controllerIdFrom(env);
  if (env.HERDR_ENV !== "1") throw missing("HERDR_ENV is not 1: this process is not running inside a Herdr pane");
  const paneId = env.HERDR_PANE_ID ?? "";
  if (!/^[A-Za-z0-9]+:[A-Za-z0-9]+$/.test(paneId)) throw missing("HERDR_PANE_ID is unset or not a pane id");
  return { controllerId, paneId };
};

/**
 * A command without its own deadline waits out a Herdr server restart or live handoff (seconds) in its read of the
 * caller's pane for at most this long, then ends UNAVAILABLE instead of hanging.
 */
export const CALLER_READ_DEADLINE_MS = 30_000;

const readCaller = async (deps: HerdrDeps, paneId: string, deadline: number): Promise<HerdrAgent> => {
  try {
    return await surviving(() => deps.herdr.getAgent(paneId), deadline);
  } catch (error) {
    throw herdrFailure(error);
  }
};

/**
 * The named agent in the caller's pane; a coordinator is a named agent that is idle or working. A read cut by a
 * Herdr restart is made again until the deadline (only a read is repeated).
 */
export const observeCaller = async (
  deps: HerdrDeps,
  paneId: string,
  deadline = Date.now() + CALLER_READ_DEADLINE_MS,
  boundTerminal?: string,
): Promise<HerdrAgent> => {
  // Under a new Herdr server (a handoff) the bound agent is missing, then `unknown`, while Herdr re-detects it.
  const redetected = boundTerminal ? await observeAcrossEpochOrFail(deps.herdr, paneId, boundTerminal, deadline) : undefined;
  const agent = redetected ?? (await readCaller(deps, paneId, deadline));
  if (!agent.name) {
    throw new AppError("CONTROLLER_AUTH_FAILED", `the agent in pane ${paneId} has no Herdr name; a coordinator must be named`, {
      hint:
        `an agent started by hand has no name until you give it one: herdr agent rename ${paneId} <name> ` +
        "(a-z first, then a-z 0-9 - _, at most 32), or start it named: herdr agent start <name> --kind KIND --pane ID",
    });
  }
  if (!agent.kind || !agent.cwd) {
    throw new AppError(
      "CONTROLLER_AUTH_FAILED",
      `pane ${paneId} does not host a named agent with a kind and a working directory`,
    );
  }
  if (agent.status === "blocked" || agent.status === "unknown") {
    throw new AppError("CONTROLLER_AUTH_FAILED", `the agent in pane ${paneId} is ${agent.status}, not idle or working`);
  }
  return agent;
};

/**
 * The agent process to bind (Linux): AGENT_CONTROL_CONTROLLER_PID when the launcher exec'd the agent with it, else
 * the foreground process of this terminal (what Herdr itself detects as the pane's agent), else the parent.
 * Null where procfs is missing: the binding then rests on pane, name, kind and cwd only.
 */
export const resolveControllerProcess = (env: Record<string, string | undefined>): ProcessIdentity | null => {
  const [, ...ancestors] = ancestry(process.pid);
  if (ancestors.length === 0) return null;
  const explicit = env.AGENT_CONTROL_CONTROLLER_PID;
  if (explicit !== undefined && explicit !== "") {
    const found = ancestors.find((process) => String(process.pid) === explicit);
    if (!found) throw missing("AGENT_CONTROL_CONTROLLER_PID is not an ancestor of this process");
    return found;
  }
  const foreground = terminalForegroundGroup();
  return ancestors.find((process) => process.pid === foreground) ?? ancestors[0] ?? null;
};

/** Whether this process descends from the recorded controller process (same pid, start time and boot). */
export const descendsFrom = (recorded: ProcessIdentity): boolean =>
  ancestry(process.pid).some((process) => sameProcess(process, recorded));
