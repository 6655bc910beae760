// Who holds a Herdr writer lane's reservation (writer-lanes.ts), and its release with the lane's claim.
import type { StoreTx } from "../../store/port.ts";

const WRITER_PREFIX = "herdr-writer:";

export const writerHolder = (leaseId: string): string => `${WRITER_PREFIX}${leaseId}`;
export const writerLeaseOf = (holder: string): string | undefined =>
  holder.startsWith(WRITER_PREFIX) ? holder.slice(WRITER_PREFIX.length) : undefined;

export const releaseWriterScopes = (tx: StoreTx, leaseId: string, now: number): Promise<string[]> =>
  tx.reservations.release(writerHolder(leaseId), undefined, now);
