import type { MeshDeps } from "../mesh/deps.ts";

/** What automation services need: the store, a fixed clock for this call, the host name and an id source. */
export type AutomationDeps = MeshDeps;

export const iso = (ms: number): string => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
