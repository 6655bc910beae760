// The public name of a controller lease: its controller id and generation. Neither is a secret (the lease id and
// fence are), so it may be printed, logged and passed in argv; takeover names the predecessor it replaces by it.

export const LEASE_REF_PATTERN = /^([A-Za-z0-9_.-]{1,100}):g([1-9][0-9]{0,14})$/;

export const leaseRefOf = (lease: { controllerId: string; generation: number }): string =>
  `${lease.controllerId}:g${lease.generation}`;
