// Text both stores hold the same way. PostgreSQL text cannot hold NUL (SQLite can), and a lone UTF-16
// surrogate has no UTF-8 form; so NUL is kept as the six visible characters \u0000 and a lone surrogate as
// U+FFFD, on both stores, instead of an error on one and the raw byte on the other.
export const NUL_ESCAPE = "\\u0000";

export const storableText = (text: string): string => text.toWellFormed().replaceAll("\0", NUL_ESCAPE);

export const storableOrNull = (text: string | null): string | null => (text === null ? null : storableText(text));
