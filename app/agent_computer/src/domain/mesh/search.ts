import { AppError } from "../../errors.ts";
import type { SearchPosition } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";
import { DATA_NOT_INSTRUCTIONS } from "./data-note.ts";
import { enterMesh, withPresence } from "./live-session.ts";
import { excerptOf } from "./search-excerpt.ts";

export const MAX_SEARCH_WORDS = 16;

export interface SearchInput {
  agentId: string;
  token: string | undefined;
  query: string;
  limit: number;
  /** Where the previous page ended: hits ranked below it. */
  after?: SearchPosition;
}

export interface SearchResult {
  agent_id: string;
  /** The words searched for, as matched: lowercase runs of letters and digits. */
  words: string[];
  messages: {
    id: string;
    from: string;
    kind: string;
    thread_id: string | null;
    channel: string | null;
    created_at: string;
    /** The store's relevance (higher is better), the first key of the hits' order. */
    score: number;
    /** At most EXCERPT_CHARS of the body around the first match, "…" marking what was cut. */
    excerpt: string;
    /** The whole body's length in characters. */
    body_chars: number;
  }[];
  count: number;
  /** How many hits rank below this page's. */
  more_hits: number;
  note: string;
  warning?: string;
}

/**
 * The words of a query, as both stores index them: runs of letters and digits, lowercased. Anything else
 * separates words, so a query cannot carry search syntax (quotes, operators) into either store.
 */
export const searchWords = (query: string): string[] => [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];

/**
 * Full-text search over the caller's own messages: those it sent and those delivered to it (pending or acked),
 * best match first. Every word must appear as a whole word. Renews presence like agent-sent-cli.
 */
export const searchMessages = async (deps: Deps, input: SearchInput): Promise<SearchResult> => {
  const words = searchWords(input.query);
  if (words.length === 0) {
    throw new AppError("INVALID_INPUT", "--query: give at least one word (letters or digits)");
  }
  if (words.length > MAX_SEARCH_WORDS) {
    throw new AppError("INVALID_INPUT", `--query: at most ${MAX_SEARCH_WORDS} different words (got ${words.length})`);
  }
  const { value: page, warning } = await withPresence(deps, async (tx, renew) => {
    await enterMesh(deps, tx, input.agentId, input.token, false, renew);
    return tx.mesh.search(input.agentId, words, input.limit, "auto", input.after);
  });
  return {
    agent_id: input.agentId,
    words,
    messages: page.hits.map((h) => ({
      id: h.id,
      from: h.sender,
      kind: h.kind,
      thread_id: h.threadId,
      channel: h.channel,
      created_at: iso(h.createdAt),
      score: h.score,
      excerpt: excerptOf(h.body, words),
      body_chars: h.body.length,
    })),
    count: page.hits.length,
    more_hits: Math.max(0, page.remaining - page.hits.length),
    note: DATA_NOT_INSTRUCTIONS,
    ...(warning ? { warning } : {}),
  };
};
