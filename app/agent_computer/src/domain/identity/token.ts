// Bun's built-in hasher and Web Crypto globals, not node:crypto: a static node:crypto import is hoisted
// into every binary's start-up by the bundler and costs more than the rest of a read command.

const randomBase64Url = (bytes: number): string =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");

/** A fresh agent token: 256 random bits, URL-safe, recognisable by its prefix in a leak scan. */
export const mintToken = (): string => `act_${randomBase64Url(32)}`;

/** A one-time recovery token (revoke-token --issue-recovery); its own prefix keeps it apart in a leak scan. */
export const mintRecoveryToken = (): string => `acr_${randomBase64Url(32)}`;

/** Only this hash is stored; the token itself is shown once. */
export const hashToken = (token: string): string => Bun.SHA256.hash(token, "hex") as string;

/** Constant-time comparison of a presented token against a stored hash. */
export const tokenMatches = (token: string, storedHash: string): boolean => {
  const presented = Bun.SHA256.hash(token) as Uint8Array;
  const stored = Uint8Array.fromHex(storedHash);
  return presented.length === stored.length && crypto.timingSafeEqual(presented, stored);
};
