import type { SessionRecord, StoreTx } from "../../store/port.ts";
import { authenticate } from "../identity/authenticate.ts";
import { AUTH_NOTE, registerNewAgent } from "../identity/register-new.ts";
import { type MeshDeps, iso } from "./deps.ts";
import { endExpiredSessions } from "./expiry.ts";
import { defaultTtlSeconds } from "./ttl.ts";

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
}

const mergeSession = (
  input: CheckinInput,
  open: SessionRecord | undefined,
  agentRole: string | null,
  deps: MeshDeps,
  lastSeq: number,
): SessionRecord => {
  const role = input.role ?? open?.role ?? agentRole;
  const ttlSeconds = input.ttlSeconds ?? open?.ttlSeconds ?? defaultTtlSeconds(role);
  const statusChanged = input.status !== undefined;
  return {
    id: open?.id ?? deps.newId("ses"),
    agentName: input.agentId,
    host: deps.host,
    role,
    repo: input.repo ?? open?.repo ?? null,
    caps: input.caps ?? open?.caps ?? [],
    statusLine: statusChanged ? (input.status ?? null) : (open?.statusLine ?? null),
    statusSetAt: statusChanged ? deps.now : (open?.statusSetAt ?? null),
    ttlSeconds,
    startedAt: open?.startedAt ?? deps.now,
    lastActivityAt: deps.now,
    expiresAt: deps.now + ttlSeconds * 1000,
    watermarkSeq: open?.watermarkSeq ?? lastSeq,
    endedAt: null,
  };
};

const toResult = (session: SessionRecord, action: CheckinAction, token?: string): CheckinResult => ({
  agent_id: session.agentName,
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

/** Creates or renews this agent's presence; an unknown name is registered first and gets its token once. */
export const checkIn = (deps: MeshDeps, input: CheckinInput): Promise<CheckinResult> =>
  deps.store.write(async (tx: StoreTx) => {
    await endExpiredSessions(tx, deps.now, deps.newId);
    let agent = await tx.mesh.getAgent(input.agentId, true);
    let token: string | undefined;
    if (!agent) {
      token = await registerNewAgent(
        tx,
        { name: input.agentId, role: input.role ?? null, capabilities: input.caps ?? [] },
        deps.now,
      );
      agent = await tx.mesh.getAgent(input.agentId, true);
      if (!agent) throw new Error("registration did not persist");
    } else {
      await authenticate(tx, input.agentId, input.token);
    }
    const open = await tx.mesh.openSession(input.agentId);
    const session = mergeSession(input, open, agent.role, deps, agent.lastSeq);
    if (open) await tx.mesh.updateSession(session);
    else await tx.mesh.insertSession(session);
    await tx.mesh.touchAgent(input.agentId, deps.now);
    const action: CheckinAction = token ? "register_and_start_session" : open ? "renew_session" : "start_session";
    return toResult(session, action, token);
  });

/** What --confirm would do, computed from a read-only snapshot; changes nothing and needs no token. */
export const previewCheckIn = (deps: MeshDeps, input: CheckinInput): Promise<CheckinResult & { preview: true }> =>
  deps.store.read(async (tx) => {
    const agent = await tx.mesh.getAgent(input.agentId);
    const open = await tx.mesh.openSession(input.agentId);
    const live = open && open.expiresAt > deps.now ? open : undefined;
    const session = mergeSession(input, live, agent?.role ?? input.role ?? null, deps, agent?.lastSeq ?? 0);
    const action: CheckinAction = !agent ? "register_and_start_session" : live ? "renew_session" : "start_session";
    return { ...toResult(session, action), session_id: live?.id ?? "(new)", preview: true as const };
  });
