import type { ReservationRecord } from "../../store/port.ts";
import { iso } from "../deps.ts";

export interface ReservationView {
  id: string;
  repo: string;
  holder: string;
  patterns: string[];
  exclusive: boolean;
  reason: string;
  created_at: string;
  expires_at: string;
}

export const reservationView = (r: ReservationRecord): ReservationView => ({
  id: r.id,
  repo: r.repoKey,
  holder: r.holder,
  patterns: r.patterns,
  exclusive: r.exclusive,
  reason: r.reason,
  created_at: iso(r.createdAt),
  expires_at: iso(r.expiresAt),
});
