/** A time-ordered id: the prefix and a UUIDv7's 32 hex digits (hex of its bytes: cheaper than removing dashes). */
export const newId = (prefix: string): string => `${prefix}_${Bun.randomUUIDv7("buffer").toString("hex")}`;
