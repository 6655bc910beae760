import { AppError } from "../../errors.ts";
import type { HolderFacts, IdentityRecord } from "../../store/port.ts";
import type { Deps, LocalProcess } from "../deps.ts";
import { normalizeCliProfile } from "../identity/cli-profiles.ts";
import { localProcessOf } from "../identity/liveness.ts";
import type { SessionFields } from "../mesh/session.ts";

/** One registration call, as the shared registration service sees it (undefined = flag omitted). */
export interface RegistrationRequest {
  agentId: string;
  role: string | null;
  capabilities: string[];
  agentClass?: string | undefined;
  description?: string | undefined;
  hostId?: string | undefined;
  managed?: boolean | undefined;
  agentPid?: number | undefined;
  agentPidStart?: string | undefined;
  hostShellPids?: number[] | undefined;
  cliProfile?: string | undefined;
  terminalTitleRef?: string | undefined;
  /** Presence fields beyond role and capabilities (agent-checkin-cli passes repo, status, ttl). */
  session?: SessionFields | undefined;
}

/** What a registration records: facts for the store, and the holder's process for this host alone. */
export interface Holder {
  facts: HolderFacts;
  process: LocalProcess | null;
}

/**
 * The facts about the holder now registering the name. The pid is checked here, on its own host: a pid
 * that is not running, or whose start time differs from the one given, would make the holder look dead
 * on its host, so such a registration is refused rather than recorded.
 */
export const holderOf = (
  deps: Deps,
  request: RegistrationRequest,
  hostId: string | null,
  previous: IdentityRecord | undefined,
): Holder => {
  let agentPidStart: string | null = null;
  if (request.agentPid !== undefined) {
    if (!deps.local || hostId !== deps.local.hostId) {
      throw new AppError(
        "INVALID_INPUT",
        `--agent-pid: this agent's host is ${hostId ?? "unknown"} but this command runs on ${deps.local?.hostId ?? "an unknown host"}; a pid only means something on its own host`,
      );
    }
    const status = deps.local.probe(request.agentPid);
    if (!status.exists)
      throw new AppError("INVALID_INPUT", `--agent-pid: no process ${request.agentPid} is running on this host`);
    if (request.agentPidStart !== undefined && status.startTime !== null && status.startTime !== request.agentPidStart) {
      throw new AppError(
        "INVALID_INPUT",
        `--agent-pid-start: process ${request.agentPid} started at ${status.startTime} (field 22 of /proc/${request.agentPid}/stat), not ${request.agentPidStart}`,
      );
    }
    agentPidStart = status.startTime ?? request.agentPidStart ?? null;
  }
  return {
    facts: {
      role: request.role,
      description: request.description ?? previous?.description ?? null,
      cliProfile: normalizeCliProfile(request.cliProfile),
      terminalTitleRef: request.terminalTitleRef ?? null,
    },
    process:
      request.agentPid === undefined && request.hostShellPids === undefined
        ? null
        : { agentPid: request.agentPid ?? null, agentPidStart, hostShellPids: request.hostShellPids ?? null },
  };
};

/**
 * Records the holder's process on this host (or forgets the one recorded), once the registration's checks have
 * passed. Only the agent's own host has anything to record: elsewhere a pid is refused by holderOf.
 */
export const rememberProcess = (deps: Deps, agent: Pick<IdentityRecord, "agentId" | "hostId">, holder: Holder): void => {
  if (deps.local && agent.hostId === deps.local.hostId) deps.local.processes.write(agent.agentId, holder.process);
};

/** Class, host id and managed are fixed by the first registration; a different value is refused, not ignored. */
export const checkImmutables = (existing: IdentityRecord, request: RegistrationRequest): void => {
  const clashes: string[] = [];
  if (request.agentClass !== undefined && request.agentClass !== existing.agentClass)
    clashes.push(`--class: is ${existing.agentClass}`);
  if (request.hostId !== undefined && request.hostId !== existing.hostId)
    clashes.push(`--host-id: is ${existing.hostId ?? "unset"}`);
  if (request.managed !== undefined && request.managed !== existing.managed) clashes.push(`--managed: is ${existing.managed}`);
  if (clashes.length > 0) {
    throw new AppError("INVALID_INPUT", `${clashes.join("; ")}; these are immutable after the first registration`, {
      hint: `to change them: agent-identity-cli unregister --agent-id ${existing.agentId}, then register again`,
    });
  }
};

/** Whether this call comes from the very process that holds the name (same pid and start time, same host). */
export const isSameHolder = (existing: IdentityRecord, holder: Holder, local: Deps["local"]): boolean => {
  const recorded = localProcessOf(existing, local);
  return (
    holder.process?.agentPid != null &&
    recorded !== undefined &&
    recorded.agentPid === holder.process.agentPid &&
    recorded.agentPidStart === holder.process.agentPidStart
  );
};
