import type { SessionRecord } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { defaultTtlSeconds } from "./ttl.ts";

/** What a caller may set on its presence session; anything omitted keeps the open session's value. */
export interface SessionFields {
  role?: string | null | undefined;
  repo?: string | undefined;
  caps?: string[] | undefined;
  status?: string | undefined;
  ttlSeconds?: number | undefined;
}

/** The session after this call: a renewal of `open` (same id and watermark) or a new one starting now. */
export const buildSession = (
  deps: Deps,
  agentId: string,
  fields: SessionFields,
  open: SessionRecord | undefined,
  agentRole: string | null,
  lastSeq: number,
): SessionRecord => {
  const role = fields.role ?? open?.role ?? agentRole;
  const ttlSeconds = fields.ttlSeconds ?? open?.ttlSeconds ?? defaultTtlSeconds(role);
  const statusChanged = fields.status !== undefined;
  return {
    id: open?.id ?? deps.newId("ses"),
    agentId,
    host: deps.host,
    role,
    repo: fields.repo ?? open?.repo ?? null,
    caps: fields.caps ?? open?.caps ?? [],
    statusLine: statusChanged ? (fields.status ?? null) : (open?.statusLine ?? null),
    statusSetAt: statusChanged ? deps.now() : (open?.statusSetAt ?? null),
    ttlSeconds,
    startedAt: open?.startedAt ?? deps.now(),
    lastActivityAt: deps.now(),
    expiresAt: deps.now() + ttlSeconds * 1000,
    watermarkSeq: open?.watermarkSeq ?? lastSeq,
    endedAt: null,
  };
};
