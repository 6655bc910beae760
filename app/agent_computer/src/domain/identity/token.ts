import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh agent token: 256 random bits, URL-safe, recognisable by its prefix in a leak scan. */
export const mintToken = (): string => `act_${randomBytes(32).toString("base64url")}`;

/** Only this hash is stored; the token itself is shown once. */
export const hashToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

/** Constant-time comparison of a presented token against a stored hash. */
export const tokenMatches = (token: string, storedHash: string): boolean => {
  const presented = Buffer.from(hashToken(token), "hex");
  const stored = Buffer.from(storedHash, "hex");
  return presented.length === stored.length && timingSafeEqual(presented, stored);
};
