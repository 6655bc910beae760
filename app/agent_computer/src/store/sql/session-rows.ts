import type { SessionRecord } from "../port.ts";
import { jsonList, num, numOrNull, type Row, str, strOrNull } from "./db.ts";

export const SESSION_COLUMNS =
  "id, agent_name, host, role, repo, caps, status_line, status_set_at, ttl_seconds, started_at, last_activity_at, expires_at, watermark_seq, ended_at";

export const toSession = (r: Row): SessionRecord => ({
  id: str(r.id),
  agentId: str(r.agent_name),
  host: str(r.host),
  role: strOrNull(r.role),
  repo: strOrNull(r.repo),
  caps: jsonList(r.caps),
  statusLine: strOrNull(r.status_line),
  statusSetAt: numOrNull(r.status_set_at),
  ttlSeconds: num(r.ttl_seconds),
  startedAt: num(r.started_at),
  lastActivityAt: num(r.last_activity_at),
  expiresAt: num(r.expires_at),
  watermarkSeq: num(r.watermark_seq),
  endedAt: numOrNull(r.ended_at),
});
