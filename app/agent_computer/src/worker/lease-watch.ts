// An attempt's lease, kept alive from the worker: renewed every third of its length, and given up on the clock. A
// renewal that does not answer (a cut network link may hold it for many minutes) counts as not renewed, so once the
// lease has run out the attempt is stopped: another worker may own the run by then.

export interface LeaseWatch {
  stop(): void;
}

/** Renews every third of `leaseMs`; calls `onLost` once, when a renewal is refused or the lease runs out unrenewed. */
export const watchLease = (leaseMs: number, renew: () => Promise<boolean>, onLost: () => void): LeaseWatch => {
  let leaseUntil = Date.now() + leaseMs;
  let renewing = false;
  let lost = false;
  const lose = () => {
    if (lost) return;
    lost = true;
    clearInterval(timer);
    onLost();
  };
  const timer = setInterval(() => {
    if (Date.now() > leaseUntil) return lose();
    if (renewing) return;
    renewing = true;
    const sentAt = Date.now();
    renew()
      .then((ok) => {
        if (ok) leaseUntil = sentAt + leaseMs;
        else lose();
      })
      .catch(() => undefined)
      .finally(() => {
        renewing = false;
      });
  }, leaseMs / 3);
  return { stop: () => clearInterval(timer) };
};
