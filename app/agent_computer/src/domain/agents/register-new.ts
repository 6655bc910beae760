import { AppError } from "../../errors.ts";
import type { IdentityRecord, SessionRecord, StoreTx } from "../../store/port.ts";
import { type Deps, hostIdOf } from "../deps.ts";
import { nameKey, SYSTEM_SENDER } from "../identity/names.ts";
import { takeRateSlots } from "../identity/rate-limit.ts";
import { hashToken, mintToken } from "../identity/token.ts";
import { buildSession, type SessionFields } from "../mesh/session.ts";
import { assignQueued } from "../tasks/route.ts";
import type { TaskSummary } from "../tasks/task-view.ts";
import { holderOf, type RegistrationRequest, rememberProcess } from "./holder.ts";

export const AUTH_NOTE =
  "This token is shown once and only its hash is stored. It was saved to the 0600 token vault in the state " +
  "directory; to use it elsewhere pass a file holding it with --token-file, or set RELAY_AGENT_TOKEN. Never put it in argv.";

/** AUTH_NOTE when the vault could not take the token (the warning says why). */
export const UNSAVED_AUTH_NOTE =
  "This token is shown once and only its hash is stored. It could NOT be saved to the token vault (see the warning): " +
  "keep it now; pass a file holding it with --token-file, or set RELAY_AGENT_TOKEN. Never put it in argv.";

/** What every successful registration produced inside its transaction. */
export interface Registered {
  agent: IdentityRecord;
  session: SessionRecord;
  autoAssigned: TaskSummary[];
  /** Present when a token was minted (first registration, recovery, re-registration of a revoked name). */
  token?: string;
}

/** A name that differs from a registered one only by case or trailing . _ - would pass for it: refused. */
const lookalikeName = (requested: string, existing: string): AppError =>
  new AppError(
    "NAME_LOOKALIKE",
    `${requested} looks like the registered name ${existing}; names compare without case and trailing . _ -`,
    {
      hint: `pick a name that no registered name looks like; to act as ${existing}, use that name with its token`,
      details: { existing_agent_id: existing },
    },
  );

/** Counts a registration against the per-name and per-host limits (the host is the machine running the call). */
export const countRegistration = (deps: Deps, tx: StoreTx, name: string): Promise<void> =>
  takeRateSlots(tx, deps.limits, "register", { name, host: hostIdOf(deps) }, deps.now());

/** Opens the presence session of a registration (or renews `open`) and hands it the queued tasks it can do. */
export const claimSession = async (
  deps: Deps,
  tx: StoreTx,
  agent: IdentityRecord,
  fields: SessionFields | undefined,
  open: SessionRecord | undefined,
): Promise<{ session: SessionRecord; autoAssigned: TaskSummary[] }> => {
  const session = buildSession(
    deps,
    agent.agentId,
    { ...fields, caps: fields?.caps ?? agent.capabilities, role: fields?.role ?? agent.role },
    open,
    agent.role,
    agent.lastSeq,
  );
  if (open) await tx.mesh.updateSession(session);
  else await tx.mesh.insertSession(session);
  return { session, autoAssigned: await assignQueued(deps, tx, agent) };
};

/**
 * Registers a name nobody holds: the one registration path shared by register-agent-cli and the first
 * agent-checkin-cli --confirm. Mints the token (returned once; only its hash is stored), records the
 * immutable facts (class, host id, managed), starts the presence session and assigns queued tasks.
 */
export const registerFirst = async (deps: Deps, tx: StoreTx, request: RegistrationRequest): Promise<Registered> => {
  const key = nameKey(request.agentId);
  if (key === nameKey(SYSTEM_SENDER)) {
    throw new AppError("INVALID_INPUT", `the name ${SYSTEM_SENDER} is reserved for notices from the mesh itself`, {
      hint: "names compare without case and without trailing . _ -; pick another name",
    });
  }
  const lookalike = await tx.identity.nameWithKey(key);
  if (lookalike !== undefined) throw lookalikeName(request.agentId, lookalike);
  const hostId = request.hostId ?? deps.local?.hostId ?? null;
  const holder = holderOf(deps, request, hostId, undefined);
  await countRegistration(deps, tx, request.agentId);
  const token = mintToken();
  await tx.identity.insertAgent({
    ...holder.facts,
    agentId: request.agentId,
    tokenHash: hashToken(token),
    capabilities: [...new Set(request.capabilities)],
    agentClass: request.agentClass ?? "unclassified",
    hostId,
    managed: request.managed ?? false,
    nameKey: key,
    now: deps.now(),
  });
  const agent = await tx.identity.getAgent(request.agentId, true);
  if (!agent) throw new Error("registration did not persist");
  rememberProcess(deps, agent, holder);
  return { agent, token, ...(await claimSession(deps, tx, agent, request.session, undefined)) };
};
