import { commandLine } from "../../command-line.ts";
import { AppError } from "../../errors.ts";
import type { IdentityRecord, SessionRecord, StoreTx } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { type AgentView, agentView } from "../identity/agent-view.ts";
import { type Liveness, livenessOf, localProcessOf } from "../identity/liveness.ts";
import { hashToken, mintToken, tokenMatches } from "../identity/token.ts";
import { TokenMismatch } from "../identity/token-mismatch.ts";
import { bounceUndelivered, endExpiredSessions } from "../mesh/expiry.ts";
import type { TaskSummary } from "../tasks/task-view.ts";
import { retryOnceOnUniqueRace } from "../unique-race.ts";
import { endHolderHistory } from "./end-history.ts";
import { checkImmutables, holderOf, isSameHolder, type RegistrationRequest, rememberProcess } from "./holder.ts";
import { AUTH_NOTE, claimSession, countRegistration, type Registered, registerFirst } from "./register-new.ts";

export const PROTOCOL_VERSION = 1;

const TOKEN_SOURCES_HINT =
  "pass the file holding its token with --token-file, set RELAY_AGENT_TOKEN, or keep the token in the vault (written at registration)";

export interface RegisterInput extends RegistrationRequest {
  token: string | undefined;
  recoveryToken?: string | undefined;
  /** --force: the session id the caller read; null means it expects no open session. */
  takeover?: { expectedSessionId: string | null } | undefined;
}

export type RegisterAction = "registered" | "re_registered" | "renewed" | "taken_over" | "recovered";

export interface RegisterResult {
  success: true;
  action: RegisterAction;
  agent: AgentView;
  protocol_version: number;
  message: string;
  agent_token?: string;
  auth_note?: string;
  capabilities_note?: string;
  cli_profile_note?: string;
  auto_assigned_tasks?: TaskSummary[];
  recovery_completed?: true;
  ended_session_id?: string;
}

/** "keep" the stored token, or "mint" a fresh one (a completed recovery, or a revoked name registered anew). */
const checkCredentials = (existing: IdentityRecord, input: RegisterInput): "keep" | "mint" => {
  const name = existing.agentId;
  if (existing.authState === "recovery_pending") {
    if (input.recoveryToken === undefined) {
      throw new AppError("AUTH_FAILED", `${name} is awaiting recovery: its token was revoked`, {
        hint: "pass the file holding the recovery token that agent-identity-cli revoke-token --issue-recovery printed with --recovery-token-file (- reads stdin)",
      });
    }
    if (!tokenMatches(input.recoveryToken, existing.recoveryHash ?? "")) {
      throw new AppError("RECOVERY_REQUIRED", `the recovery token for ${name} was rejected; recovery is still required`, {
        hint: "present the recovery token printed by the latest revoke-token --issue-recovery",
      });
    }
    return "mint";
  }
  if (input.recoveryToken !== undefined) {
    throw new AppError("AUTH_FAILED", `no recovery is pending for ${name}`, { hint: "re-register with its agent token" });
  }
  if (existing.authState === "revoked") return "mint";
  if (input.token === undefined) {
    throw new AppError("AUTH_FAILED", `${name} is already registered; re-registering needs its token`, {
      hint: TOKEN_SOURCES_HINT,
    });
  }
  if (!tokenMatches(input.token, existing.tokenHash)) throw new TokenMismatch(name);
  return "keep";
};

const rereadHint = (name: string): string =>
  `re-read the current session (agents-list-cli --include-stale, or ${commandLine("agent-identity-cli", "show", "--agent-id", name)}) and decide again; never retry --force with the same id`;

const preconditionFailed = (name: string, expected: string | null, actual: string | null): AppError =>
  new AppError(
    "FORCE_PRECONDITION_FAILED",
    `--expected-session-id is ${expected ?? "null"} but the current session is ${actual ?? "null (none open)"}`,
    { hint: rereadHint(name), details: { expected_session_id: expected, actual_session_id: actual } },
  );

const collision = (name: string, open: SessionRecord | undefined, holder: Liveness): AppError =>
  new AppError("NAME_COLLISION_ACTIVE", `${name} is held by a live session (evidence: ${holder.evidence})`, {
    hint:
      "two terminals under one name race for its mail: pick another name, or, only if that holder is really gone, take " +
      `the name over with --force --expected-session-id ${open?.id ?? "null"} (a compare-and-swap; if it fails, re-read)`,
    details: { existing_session_id: open?.id ?? null, liveness_evidence: holder.evidence },
  });

const capabilitiesNote = (requested: readonly string[], stored: readonly string[], name: string): string | undefined => {
  const same = requested.length === stored.length && requested.every((c) => stored.includes(c));
  if (same) return undefined;
  const missing = requested.filter((c) => !stored.includes(c));
  return (
    `capabilities are immutable after the first registration: requested [${requested.join(", ")}] ignored, stored ` +
    `[${stored.join(", ")}] kept. ` +
    (missing.length > 0
      ? `To add ${missing.join(", ")}: ${commandLine("agent-identity-cli", "expand-capabilities", "--agent-id", name, "--add", missing.join(","))}`
      : "They can only be added, never removed.")
  );
};

/** Re-registration of a known name: credentials, the takeover precondition, the live-holder rule, then the swap. */
const registerKnown = async (deps: Deps, tx: StoreTx, existing: IdentityRecord, input: RegisterInput): Promise<Done> => {
  checkImmutables(existing, input);
  const holderNow = holderOf(deps, input, existing.hostId, existing);
  await countRegistration(deps, tx, input.agentId);
  const credentials = checkCredentials(existing, input);
  // A name revoked before its history ended with the revocation: it still must not reach this holder.
  if (existing.authState === "revoked") await endHolderHistory(deps, tx, input.agentId, deps.now());
  const open = await tx.mesh.openSession(input.agentId);
  const actual = open?.id ?? null;
  if (input.takeover && input.takeover.expectedSessionId !== actual)
    throw preconditionFailed(input.agentId, input.takeover.expectedSessionId, actual);
  const holder = livenessOf(existing, open, deps.now(), deps.local);
  const sameHolder = isSameHolder(existing, holderNow, deps.local);
  // A revoked or recovering name has no holder that could still act: its token no longer authenticates.
  const contested = credentials === "keep" && !input.takeover && holder.alive;
  if (contested && !sameHolder) throw collision(input.agentId, open, holder);
  const renew = contested && open !== undefined;
  if (open && !renew) {
    // The swap itself: only the session read above may be ended, so of two racing takeovers one wins.
    if (!(await tx.identity.endOpenSession(input.agentId, open.id, deps.now())))
      throw preconditionFailed(input.agentId, actual, null);
    await bounceUndelivered(tx, { ...open, endedAt: deps.now() }, deps.now(), deps.newId);
  }
  await tx.identity.updateHolder(input.agentId, holderNow.facts, deps.now());
  rememberProcess(deps, existing, holderNow);
  let token: string | undefined;
  if (credentials === "mint") {
    token = mintToken();
    const next = { tokenHash: hashToken(token), authState: "active" as const, recoveryHash: null };
    // The agent row is locked for this transaction, so a failed swap is a bug, not a race to report.
    if (!(await tx.identity.swapCredentials(input.agentId, existing.tokenHash, next, deps.now()))) {
      throw new Error(`the credentials of ${input.agentId} changed under the row lock`);
    }
  }
  const agent = await tx.identity.getAgent(input.agentId);
  if (!agent) throw new Error("registration did not persist");
  const claimed = await claimSession(deps, tx, agent, input.session, renew ? open : undefined);
  const action: RegisterAction =
    existing.authState === "recovery_pending" ? "recovered" : renew ? "renewed" : input.takeover ? "taken_over" : "re_registered";
  return { agent, ...claimed, ...(token ? { token } : {}), action, ...(open && !renew ? { ended: open.id } : {}) };
};

const DONE: Record<RegisterAction, string> = {
  registered: "registered",
  re_registered: "re-registered",
  renewed: "renewed its registration",
  taken_over: "taken over",
  recovered: "recovered",
};

type Done = Registered & { action: RegisterAction; ended?: string };

const registerOnce = (deps: Deps, input: RegisterInput): Promise<RegisterResult> =>
  deps.store.write(async (tx) => {
    await endExpiredSessions(tx, deps.now(), deps.newId);
    const existing = await tx.identity.getAgent(input.agentId, true);
    if (!existing && input.recoveryToken !== undefined) {
      throw new AppError("AUTH_FAILED", `no recovery is pending for ${input.agentId}: it is not registered`);
    }
    if (!existing && input.takeover && input.takeover.expectedSessionId !== null) {
      throw preconditionFailed(input.agentId, input.takeover.expectedSessionId, null);
    }
    const done: Done = existing
      ? await registerKnown(deps, tx, existing, input)
      : { ...(await registerFirst(deps, tx, input)), action: "registered" };
    const liveness = livenessOf(done.agent, done.session, deps.now(), deps.local);
    const note = existing
      ? capabilitiesNote([...new Set(input.capabilities)], done.agent.capabilities, input.agentId)
      : undefined;
    return {
      success: true as const,
      action: done.action,
      agent: agentView(done.agent, done.session, liveness, localProcessOf(done.agent, deps.local)),
      protocol_version: PROTOCOL_VERSION,
      message: `Agent "${input.agentId}" ${DONE[done.action]} as ${done.agent.role ?? "-"} (session ${done.session.id})`,
      ...(done.token ? { agent_token: done.token, auth_note: AUTH_NOTE } : {}),
      ...(note ? { capabilities_note: note } : {}),
      ...(input.cliProfile !== undefined && done.agent.cliProfile === null
        ? { cli_profile_note: `--cli-profile ${input.cliProfile} is not a known agent CLI; stored as null` }
        : {}),
      ...(done.autoAssigned.length > 0 ? { auto_assigned_tasks: done.autoAssigned } : {}),
      ...(done.action === "recovered" ? { recovery_completed: true as const } : {}),
      ...(done.ended ? { ended_session_id: done.ended } : {}),
    };
  });

/**
 * register-agent-cli's service: an idempotent upsert keyed by name. Two racing first registrations of
 * one name meet at the primary key; the loser re-runs and is then an ordinary re-registration.
 */
export const registerAgent = (deps: Deps, input: RegisterInput): Promise<RegisterResult> =>
  retryOnceOnUniqueRace(() => registerOnce(deps, input));
