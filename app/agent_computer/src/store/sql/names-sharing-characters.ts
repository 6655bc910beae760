import type { Db } from "./db.ts";

/**
 * The registered names that could be `edits` edits from `typed`, selected by the database so a directory of any
 * size costs the caller a handful of rows. One edit changes at most one character on each side, so a name that close
 * shares (with repetition) at least max(its length, typed's length) - edits characters with `typed`; every name that
 * close passes, and the caller's edit distance decides among the few that do.
 */
export const sharingCharactersSql = (
  dialect: Db["dialect"],
  typed: string,
  edits: number,
  limit: number,
): { sql: string; params: unknown[] } => {
  const counts = new Map<string, number>();
  for (const char of typed) counts.set(char, (counts.get(char) ?? 0) + 1);
  const [least, greatest] = dialect === "sqlite" ? ["min", "max"] : ["LEAST", "GREATEST"];
  // How often each of typed's characters occurs in name, up to how often typed has it.
  const shared = [...counts.values()].map(
    (count, i) => `${least}(${Math.trunc(count)}, length(name) - length(replace(name, $${i + 6}, '')))`,
  );
  return {
    sql: `SELECT name FROM agents WHERE length(name) BETWEEN $1 AND $2
      AND ${shared.length > 0 ? shared.join(" + ") : "0"} >= ${greatest}(length(name), $3) - $4
      ORDER BY name LIMIT $5`,
    params: [typed.length - edits, typed.length + edits, typed.length, edits, limit, ...counts.keys()],
  };
};
