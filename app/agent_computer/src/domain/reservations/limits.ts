// The documented bounds of a reservation.
export const DEFAULT_TTL_S = 3600;
export const MAX_TTL_S = 86_400;
export const MAX_PATTERNS = 100;
