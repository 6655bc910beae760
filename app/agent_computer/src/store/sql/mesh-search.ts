import type { SearchHit, SearchPage, SearchPlan, SearchPosition } from "../port.ts";
import { type Db, num, type Row, str, strOrNull } from "./db.ts";
import { ofCurrentHolder, seenBy } from "./seen-by.ts";

// Full-text search over the caller's own messages, by one of two plans: "words" visits the store's messages holding
// the query words and checks each against seenBy; "caller" starts from the caller's own messages. Both apply the
// same conditions and the same ORDER BY, and the scores do not depend on the plan (FTS5's bm25 reads index-wide
// statistics, ts_rank only the message's stored words), so they return the same hits in the same order.
// Limits: on SQLite bm25 counts each query word's messages across the index on every query, and the caller plan
// steps through the word's matches in the index (cheaply, no lookup per match), so a word in most of the store
// still costs time in proportion to the store; PostgreSQL's caller plan visits only the caller's messages.

/** The ids of the messages `$2` may see: seenBy's set, as rows to start from. */
const MINE = `SELECT id FROM messages WHERE sender = $2
  UNION SELECT message_id FROM deliveries WHERE recipient = $2 AND state IN ('pending', 'acked')`;
const SEEN_BY = seenBy("$2");
const OF_HOLDER = ofCurrentHolder("$2");
const COLUMNS = "m.id, m.sender, m.kind, m.body, m.thread_id, m.channel, m.created_at";
// The hits' order, made total by created_at then id so a page can start right after the last hit of the one before.
const ORDER = "ORDER BY score DESC, created_at DESC, id DESC LIMIT $3";
// A page after another: hits ranked below the last one shown ($4 its score, $5 its created_at, $6 its id).
const AFTER = "WHERE score < $4 OR (score = $4 AND (created_at < $5 OR (created_at = $5 AND id < $6)))";

// SQLite: each word an FTS5 phrase, all required; bm25 is lower for a better match. bm25 counts each word's
// messages index-wide once per FTS5 cursor, so the caller plan keeps one cursor: it walks the matches and keeps
// those whose rowid is in the caller's set, built once (the unary + stops SQLite from turning the IN into one
// cursor per rowid, which would count again for every row). A match costs a step in the index and a set lookup,
// not the seenBy subquery.
const SQLITE_PLANS = {
  words: `SELECT ${COLUMNS}, -bm25(message_search) AS score
    FROM message_search JOIN messages m ON m.id = message_search.message_id
    WHERE message_search MATCH $1 AND ${SEEN_BY}`,
  caller: `SELECT ${COLUMNS}, -bm25(message_search) AS score
    FROM message_search JOIN messages m ON m.id = message_search.message_id
    WHERE message_search MATCH $1
      AND +message_search.rowid IN (SELECT r.search_rowid FROM (${MINE}) mine JOIN message_search_rows r ON r.message_id = mine.id)
      AND ${OF_HOLDER}`,
};
// PostgreSQL: the words stored with each message (migration 014). OFFSET 0 keeps the caller plan's lookup of each
// message by id from being merged into a scan of the word index.
const POSTGRES_PLANS = {
  words: `SELECT ${COLUMNS}, ts_rank(m.body_words, q) AS score
    FROM messages m, to_tsquery('simple', $1) q
    WHERE m.body_words @@ q AND ${SEEN_BY}`,
  caller: `SELECT ${COLUMNS}, ts_rank(m.body_words, q) AS score
    FROM (${MINE}) mine
      CROSS JOIN LATERAL (SELECT id, sender, kind, body, thread_id, channel, created_at, body_words
        FROM messages WHERE id = mine.id OFFSET 0) m,
      to_tsquery('simple', $1) q
    WHERE m.body_words @@ q AND ${OF_HOLDER}`,
};

const matchFor = (db: Db, words: readonly string[]): string =>
  db.dialect === "sqlite" ? words.map((w) => `"${w}"`).join(" ") : words.join(" & ");

/** How many messages the caller may see (a message it sent itself counts twice: an estimate is enough). */
const callerMessages = async (db: Db, agentId: string): Promise<number> =>
  num(
    (
      await db.get<Row>(
        `SELECT (SELECT count(*) FROM messages WHERE sender = $1)
           + (SELECT count(*) FROM deliveries WHERE recipient = $1 AND state IN ('pending', 'acked')) AS n`,
        [agentId],
      )
    )?.n,
  );

/** SQLite: whether `word` is in at most `bound` messages store-wide. FTS5 stops counting at bound + 1. */
const sqliteWordWithin = async (db: Db, word: string, bound: number): Promise<boolean> =>
  num(
    (
      await db.get<Row>("SELECT count(*) AS n FROM (SELECT 1 FROM message_search WHERE message_search MATCH $1 LIMIT $2)", [
        matchFor(db, [word]),
        bound + 1,
      ])
    )?.n,
  ) <= bound;

/**
 * PostgreSQL: the planner's estimate of the messages holding every word (from the statistics ANALYZE keeps of the
 * stored words). Counting instead would cost what it saves: a GIN match cannot stop early, and with a LIMIT the
 * planner prefers a sequential scan.
 */
const postgresEstimate = async (db: Db, words: readonly string[]): Promise<number> => {
  const row = await db.get<Row>("EXPLAIN (FORMAT JSON) SELECT 1 FROM messages WHERE body_words @@ to_tsquery('simple', $1)", [
    matchFor(db, words),
  ]);
  const explained = Object.values(row ?? {})[0];
  const plan = (typeof explained === "string" ? JSON.parse(explained) : explained) as { Plan: { "Plan Rows": number } }[];
  return num(plan[0]?.Plan["Plan Rows"]);
};

/**
 * The plan with fewer rows to visit: the words plan visits the messages of the rarest word, the caller plan the
 * caller's own. Choosing costs no more than the caller plan: SQLite's counts stop at the caller's count, and
 * PostgreSQL's is the planner's estimate.
 */
const choosePlan = async (db: Db, agentId: string, words: readonly string[]): Promise<"words" | "caller"> => {
  const mine = await callerMessages(db, agentId);
  if (db.dialect === "postgres") return (await postgresEstimate(db, words)) <= mine ? "words" : "caller";
  for (const word of words) if (await sqliteWordWithin(db, word, mine)) return "words";
  return "caller";
};

/**
 * One page of hits, ranked below `after` when given, and how many hits that page starts (itself included): the
 * count costs nothing more, since ranking already visits every match. The hits come from a subquery that neither
 * store merges into the page's query (a LIMIT or OFFSET stops it), so bm25 stays in the select list where FTS5 allows it.
 */
const pageSql = (db: Db, plan: string, after: SearchPosition | undefined): string =>
  `SELECT hits.*, count(*) OVER () AS remaining FROM (${plan} ${db.dialect === "sqlite" ? "LIMIT -1" : "OFFSET 0"}) hits
   ${after ? AFTER : ""} ${ORDER}`;

export const searchMessages = async (
  db: Db,
  agentId: string,
  words: readonly string[],
  limit: number,
  plan: SearchPlan = "auto",
  after?: SearchPosition,
): Promise<SearchPage> => {
  const chosen = plan === "auto" ? await choosePlan(db, agentId, words) : plan;
  const inner = (db.dialect === "sqlite" ? SQLITE_PLANS : POSTGRES_PLANS)[chosen];
  const params: unknown[] = [matchFor(db, words), agentId, limit];
  if (after) params.push(after.score, after.createdAt, after.id);
  const rows = await db.all<Row>(pageSql(db, inner, after), params);
  return { hits: rows.map(hitOf), remaining: rows.length > 0 ? num(rows[0]?.remaining) : 0 };
};

const hitOf = (r: Row): SearchHit => ({
  id: str(r.id),
  sender: str(r.sender),
  kind: str(r.kind),
  body: str(r.body),
  threadId: strOrNull(r.thread_id),
  channel: strOrNull(r.channel),
  createdAt: num(r.created_at),
  score: Number(r.score),
});
