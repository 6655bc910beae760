// Of each key's rows, a bounded few and the key's count, in one statement on both stores: a message broadcast to
// thousands has a delivery per recipient, and a page that names a few of them reads only those.
import { type Db, placeholders, type Row } from "./db.ts";

/**
 * Of each key's rows (`key` among `keys`), the first `few` by `name` and the one naming `always`, each with the key's
 * count of rows (`total`), as columns key, name, the `extra` ones (", a, b") and total, ordered by key then name.
 */
export const firstOfEach = (
  db: Db,
  few: number,
  table: string,
  key: string,
  name: string,
  extra: string,
  keys: string[],
  always = "",
) =>
  keys.length === 0
    ? Promise.resolve([] as Row[])
    : db.all<Row>(
        `SELECT ${key} AS key, ${name} AS name${extra}, total FROM (
       SELECT ${key}, ${name}${extra}, ROW_NUMBER() OVER (PARTITION BY ${key} ORDER BY ${name}) AS n,
              COUNT(*) OVER (PARTITION BY ${key}) AS total
       FROM ${table} WHERE ${key} IN (${placeholders(keys.length)})
     ) ranked WHERE n <= $${keys.length + 1} OR ${name} = $${keys.length + 2} ORDER BY ${key}, ${name}`,
        [...keys, few, always],
      );
