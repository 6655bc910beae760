/** Short-lived roles get a short default ttl so a dead ping agent leaves the directory quickly. */
const SHORT_LIVED_ROLES = new Set(["ping", "verification"]);

export const TTL_MIN_SECONDS = 60;
export const TTL_MAX_SECONDS = 86_400;

export const defaultTtlSeconds = (role: string | null | undefined): number =>
  role && SHORT_LIVED_ROLES.has(role.toLowerCase()) ? 900 : 3600;
