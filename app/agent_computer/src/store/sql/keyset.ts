// Keyset pages of the lists that show the newest first (by created_at, then id): a page after another is "older
// than its last row", so rows written between two pages neither repeat nor push others off a page.

/** A row's place in a newest-first list: the created_at and id of the last row of the page before. */
export interface Position {
  createdAt: number;
  id: string;
}

/**
 * The WHERE clause of `conditions` (a condition ending in "$" takes its value as the next parameter) and of "older
 * than `before`", with its parameters after `leading` (those the statement numbers first, e.g. a LIMIT as $1).
 */
export const newestFirst = (
  conditions: readonly (readonly [string, unknown?])[],
  before: Position | undefined,
  leading: readonly unknown[],
): { where: string; params: unknown[] } => {
  const params = [...leading];
  const next = (value: unknown): string => `$${params.push(value)}`;
  const parts = conditions.map(([sql, value]) => (sql.endsWith("$") ? `${sql.slice(0, -1)}${next(value)}` : sql));
  if (before) {
    const at = next(before.createdAt);
    parts.push(`(created_at < ${at} OR (created_at = ${at} AND id < ${next(before.id)}))`);
  }
  return { where: parts.length > 0 ? `WHERE ${parts.join(" AND ")}` : "", params };
};
