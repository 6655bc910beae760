import type { SessionRecord, StoreTx } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { endExpiredSessions } from "../mesh/expiry.ts";
import { buildSession } from "../mesh/session.ts";
import type { TaskSummary } from "../tasks/task-view.ts";
import { retryOnceOnUniqueRace } from "../unique-race.ts";
import { AUTH_NOTE, registerFirst } from "./register-new.ts";

export interface CheckinInput {
  agentId: string;
  role?: string | undefined;
  repo?: string | undefined;
  caps?: string[] | undefined;
  status?: string | undefined;
  ttlSeconds?: number | undefined;
  token: string | undefined;
}

export type CheckinAction = "register_and_start_session" | "start_session" | "renew_session";

export interface CheckinResult {
  agent_id: string;
  action: CheckinAction;
  session_id: string;
  role: string | null;
  repo: string | null;
  caps: string[];
  status: string | null;
  ttl_seconds: number;
  started_at: string;
  expires_at: string;
  watermark_seq: number;
  agent_token?: string;
  auth_note?: string;
  auto_assigned_tasks?: TaskSummary[];
}

const toResult = (session: SessionRecord, action: CheckinAction, token?: string): CheckinResult => ({
  agent_id: session.agentId,
  action,
  session_id: session.id,
  role: session.role,
  repo: session.repo,
  caps: session.caps,
  status: session.statusLine,
  ttl_seconds: session.ttlSeconds,
  started_at: iso(session.startedAt),
  expires_at: iso(session.expiresAt),
  watermark_seq: session.watermarkSeq,
  ...(token ? { agent_token: token, auth_note: AUTH_NOTE } : {}),
});

const checkInOnce = (deps: Deps, input: CheckinInput): Promise<CheckinResult> =>
  deps.store.write(async (tx: StoreTx) => {
    await endExpiredSessions(tx, deps.now(), deps.newId);
    const agent = await tx.mesh.getAgent(input.agentId, true);
    if (!agent) {
      // The first check-in of a name is a registration, through the same service as register-agent-cli.
      const registered = await registerFirst(deps, tx, {
        agentId: input.agentId,
        role: input.role ?? null,
        capabilities: input.caps ?? [],
        session: input,
      });
      const result = toResult(registered.session, "register_and_start_session", registered.token);
      return registered.autoAssigned.length > 0 ? { ...result, auto_assigned_tasks: registered.autoAssigned } : result;
    }
    await authenticate(tx, input.agentId, input.token);
    const open = await tx.mesh.openSession(input.agentId);
    const session = buildSession(deps, input.agentId, input, open, agent.role, agent.lastSeq);
    if (open) await tx.mesh.updateSession(session);
    else await tx.mesh.insertSession(session);
    await tx.mesh.touchAgent(input.agentId, deps.now());
    return toResult(session, open ? "renew_session" : "start_session");
  });

/**
 * Creates or renews this agent's presence; an unknown name is registered first and gets its token once.
 * Two racing first check-ins of one name meet at the primary key; the loser re-runs as a known name.
 */
export const checkIn = (deps: Deps, input: CheckinInput): Promise<CheckinResult> =>
  retryOnceOnUniqueRace(() => checkInOnce(deps, input));

/** What --confirm would do, computed from a read-only snapshot; changes nothing and needs no token. */
export const previewCheckIn = (deps: Deps, input: CheckinInput): Promise<CheckinResult & { preview: true }> =>
  deps.store.read(async (tx) => {
    const agent = await tx.mesh.getAgent(input.agentId);
    const open = await tx.mesh.openSession(input.agentId);
    const live = open && open.expiresAt > deps.now() ? open : undefined;
    const session = buildSession(deps, input.agentId, input, live, agent?.role ?? input.role ?? null, agent?.lastSeq ?? 0);
    const action: CheckinAction = !agent ? "register_and_start_session" : live ? "renew_session" : "start_session";
    return { ...toResult(session, action), session_id: live?.id ?? "(new)", preview: true as const };
  });
