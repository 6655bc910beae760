// An agent's own reservations: renewed or released, never another's.
import { AppError } from "../../errors.ts";
import type { StoreTx } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import { MAX_LIVE_PER_REPO } from "./conflicts.ts";
import { type ReservationView, reservationView } from "./reservation-view.ts";

export interface OwnInput {
  agentId: string;
  token: string | undefined;
  /** Which of the agent's reservations; undefined: all of them in repoKey. */
  ids: string[] | undefined;
  repoKey: string | undefined;
}

const ownIds = async (tx: StoreTx, input: OwnInput, now: number): Promise<string[]> => {
  if (input.ids) return input.ids;
  const repoKey = input.repoKey;
  const mine = await tx.reservations.live({ holder: input.agentId, ...(repoKey ? { repoKey } : {}) }, now, MAX_LIVE_PER_REPO);
  return mine.map((r) => r.id);
};

const notYours = (ids: readonly string[]): AppError =>
  new AppError("NOT_FOUND", `no live reservation of yours with id ${ids.join(", ")}`, {
    hint: "agent-reserve-cli list --holder <you> shows yours; released and expired ones cannot be renewed",
  });

/** Extends the agent's own live reservations to now + ttl; an expired or released one is not revived. */
/** How many renewed reservations an answer shows; renewed_count counts them all. */
export const RENEWED_SHOWN = 20;

export const renew = (
  deps: Deps,
  input: OwnInput & { ttlS: number },
): Promise<{ renewed: ReservationView[]; renewed_count: number }> =>
  deps.store.write(async (tx) => {
    const now = deps.now();
    await authenticate(tx, input.agentId, input.token, { lock: true });
    const ids = await ownIds(tx, input, now);
    const missing: string[] = [];
    for (const id of ids) if (!(await tx.reservations.renew(id, input.agentId, now + input.ttlS * 1000, now))) missing.push(id);
    if (missing.length > 0) throw notYours(missing);
    const renewed: ReservationView[] = [];
    for (const id of ids.slice(0, RENEWED_SHOWN)) {
      const record = await tx.reservations.get(id);
      if (record) renewed.push(reservationView(record));
    }
    return { renewed, renewed_count: ids.length };
  });

/** Releases the agent's own live reservations: they stop counting at once. */
export const release = (deps: Deps, input: OwnInput): Promise<{ released: string[] }> =>
  deps.store.write(async (tx) => {
    const now = deps.now();
    await authenticate(tx, input.agentId, input.token, { lock: true });
    const ids = await ownIds(tx, input, now);
    const released = await tx.reservations.release(input.agentId, ids, now);
    const missing = ids.filter((id) => !released.includes(id));
    if (missing.length > 0) throw notYours(missing);
    return { released };
  });
