// The directory's reads: one page by agent name (a keyset, so agents that check in between two pages neither repeat
// nor drop out), its counts, and the topology summary. Every filter is a condition here, in SQL, on both stores.
import type { DirectoryCounts, DirectoryFilter, MeshRepo } from "../port.ts";
import { type Db, num, type Row, str } from "./db.ts";
import { SESSION_COLUMNS, toSession } from "./session-rows.ts";

/** The conditions of one query, with their parameters numbered as they are added. */
class Conditions {
  readonly params: unknown[] = [];
  readonly live: string;
  readonly stale: string;
  constructor(now: number) {
    const at = this.param(now);
    this.live = `(s.ended_at IS NULL AND s.expires_at > ${at})`;
    // An agent with no live session is listed by its latest one.
    this.stale =
      `(NOT ${this.live} AND NOT EXISTS (SELECT 1 FROM sessions o WHERE o.agent_name = s.agent_name AND o.ended_at IS NULL AND o.expires_at > ${at})` +
      " AND s.started_at = (SELECT MAX(l.started_at) FROM sessions l WHERE l.agent_name = s.agent_name))";
  }

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  ofStatus(status: DirectoryFilter["status"]): string {
    return status === "live" ? this.live : status === "stale" ? this.stale : `(${this.live} OR ${this.stale})`;
  }
}

/** LIKE's own characters taken literally (with ESCAPE '\'). */
const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** The filter's conditions other than status, joined with AND (or "1=1"). */
const narrowing = (db: Db, c: Conditions, f: DirectoryFilter): string => {
  const parts: string[] = [];
  if (f.role !== undefined) parts.push(`s.role = ${c.param(f.role)}`);
  if (f.repo !== undefined) parts.push(`s.repo = ${c.param(f.repo)}`);
  if (f.host !== undefined) parts.push(`s.host = ${c.param(f.host)}`);
  for (const cap of f.capabilities ?? []) {
    const p = c.param(cap);
    parts.push(
      db.dialect === "postgres"
        ? `s.caps::jsonb @> jsonb_build_array(${p}::text)`
        : `EXISTS (SELECT 1 FROM json_each(s.caps) WHERE json_each.value = ${p})`,
    );
  }
  if (f.namePrefix !== undefined) {
    // A whole number of characters, so it is written into the statement rather than typed as a parameter.
    parts.push(`substr(s.agent_name, 1, ${Array.from(f.namePrefix).length}) = ${c.param(f.namePrefix)}`);
  }
  if (f.query !== undefined) {
    const p = c.param(`%${likeLiteral(f.query.toLowerCase())}%`);
    parts.push(`(lower(s.agent_name) LIKE ${p} ESCAPE '\\' OR lower(COALESCE(a.description, '')) LIKE ${p} ESCAPE '\\')`);
  }
  return parts.length === 0 ? "1=1" : parts.join(" AND ");
};

const FROM = "FROM sessions s JOIN agents a ON a.name = s.agent_name";

export const directoryOps = (
  db: Db,
): Pick<MeshRepo, "directory" | "directoryCounts" | "directoryTopology" | "directoryHostCounts"> => ({
  directory: async (now, filter, page = {}) => {
    const c = new Conditions(now);
    const where = [c.ofStatus(filter.status), narrowing(db, c, filter)];
    if (page.after !== undefined) where.push(`s.agent_name > ${c.param(page.after)}`);
    const limit = page.limit === undefined ? "" : ` LIMIT ${c.param(page.limit)}`;
    const columns = SESSION_COLUMNS.split(", ")
      .map((column) => `s.${column}`)
      .join(", ");
    const rows = await db.all<Row>(
      `SELECT ${columns} ${FROM} WHERE ${where.join(" AND ")} ORDER BY s.agent_name${limit}`,
      c.params,
    );
    return rows.map(toSession);
  },

  directoryCounts: async (now, filter, after) => {
    const c = new Conditions(now);
    const narrow = narrowing(db, c, filter);
    const beyond = after === undefined ? "" : ` AND s.agent_name > ${c.param(after)}`;
    // One count per liveness, each its own subquery: PostgreSQL evaluates a stale test (two correlated subqueries)
    // on every row of an OR with the live test, ten times the cost of counting the two apart.
    const count = (liveness: string, extra = "") => `(SELECT COUNT(*) ${FROM} WHERE ${liveness} AND ${narrow}${extra})`;
    const following =
      filter.status === "live"
        ? count(c.live, beyond)
        : filter.status === "stale"
          ? count(c.stale, beyond)
          : `${count(c.live, beyond)} + ${count(c.stale, beyond)}`;
    const row = await db.get<Row>(`SELECT ${count(c.live)} AS live, ${count(c.stale)} AS stale, ${following} AS after`, c.params);
    return { live: num(row?.live ?? 0), stale: num(row?.stale ?? 0), after: num(row?.after ?? 0) } satisfies DirectoryCounts;
  },

  directoryTopology: async (now, filter) => {
    const c = new Conditions(now);
    const rows = await db.all<Row>(
      `SELECT a.class AS class, s.host AS host, COUNT(*) AS n ${FROM} WHERE ${c.live} AND ${narrowing(db, c, filter)}
       GROUP BY a.class, s.host ORDER BY n DESC, a.class, s.host`,
      c.params,
    );
    return rows.map((r) => ({ agentClass: str(r.class), host: str(r.host), count: num(r.n) }));
  },

  directoryHostCounts: async (now, filter, hosts) => {
    if (hosts.length === 0) return [];
    const c = new Conditions(now);
    const narrow = narrowing(db, c, filter);
    const among = hosts.map((host) => c.param(host)).join(", ");
    // Live and stale counted apart, as in directoryCounts: an OR of the two costs PostgreSQL the stale test on every row.
    const count = (liveness: string, test: string) =>
      `SELECT s.host AS host, '${liveness}' AS liveness, COUNT(*) AS n ${FROM} WHERE ${test} AND ${narrow} AND s.host IN (${among})
       GROUP BY s.host`;
    const rows = await db.all<Row>(`${count("live", c.live)} UNION ALL ${count("stale", c.stale)}`, c.params);
    const byHost = new Map(hosts.map((host) => [host, { host, live: 0, stale: 0 }]));
    for (const r of rows) {
      const entry = byHost.get(str(r.host));
      if (entry) entry[str(r.liveness) === "live" ? "live" : "stale"] = num(r.n);
    }
    return [...byHost.values()];
  },
});
