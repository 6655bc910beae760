// The family's output budget: a command's answer on stdout, text or --json, stays within 16 KB, because its reader is
// mostly a model whose context is the scarcest thing it has, and clients cut long tool output where they like. Every
// list pages well before this (paging.ts); this is the last resort for the answer that still would not fit: it is cut
// here, at a line (text) or at the end of its longest list (--json), with a note that says what was left out, so the
// cut is never silent and never in the middle of a value.
import { safeJson } from "../../terminal-text.ts";

export const OUTPUT_BUDGET_BYTES = 16 * 1024;

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

/**
 * Text (without its final newline) that, with that newline and `reserved` bytes after it, fits `budget`: whole lines
 * up to the budget, then one line saying how many were cut.
 */
export const fitText = (text: string, budget = OUTPUT_BUDGET_BYTES, reserved = 0): string => {
  if (bytes(text) + 1 + reserved <= budget) return text;
  const lines = text.split("\n");
  const total = lines.length;
  const note = (cut: number): string =>
    `… ${cut} more line(s) cut at the ${budget / 1024} KB output budget: ask for less (--limit, a filter) or page with --cursor`;
  let kept = 0;
  let size = 0;
  // Room for the note with the largest count it can carry.
  const room = budget - reserved - bytes(note(total)) - 1;
  while (kept < total && size + bytes(lines[kept] as string) + 1 <= room) size += bytes(lines[kept++] as string) + 1;
  const head = kept === 0 ? [] : lines.slice(0, kept);
  // A single line longer than the budget is cut inside itself rather than shown as nothing.
  if (kept === 0)
    head.push(
      Buffer.from(lines[0] as string)
        .subarray(0, Math.max(0, room - 4))
        .toString("utf8")
        .replace(/\uFFFD$/, ""),
    );
  return `${head.join("\n")}\n${note(total - kept)}`;
};

type Json = Record<string, unknown>;

interface ArraySite {
  holder: Json;
  key: string;
  list: unknown[];
  size: number;
}

/** Every array held by an object field, at most three objects deep, with its serialised size. */
const arraySites = (value: unknown, depth = 0, out: ArraySite[] = []): ArraySite[] => {
  if (depth > 3 || typeof value !== "object" || value === null || Array.isArray(value)) return out;
  for (const [key, field] of Object.entries(value as Json)) {
    if (Array.isArray(field)) out.push({ holder: value as Json, key, list: field, size: bytes(JSON.stringify(field, null, 2)) });
    else arraySites(field, depth + 1, out);
  }
  return out;
};

const clone = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

/**
 * The --json document within `budget` bytes: while it is over, its longest list loses entries from its end, and
 * `output_cut` says which lists lost how many. A document with no list to shorten is returned as it is.
 */
export const fitJson = (value: unknown, budget = OUTPUT_BUDGET_BYTES): string => {
  const whole = `${safeJson(value, 2)}\n`;
  if (bytes(whole) <= budget || typeof value !== "object" || value === null || Array.isArray(value)) return whole;
  const doc = clone(value) as Json;
  const cut: Record<string, number> = {};
  const render = (): string => `${safeJson({ ...doc, output_cut: { budget_bytes: budget, not_shown: cut } }, 2)}\n`;
  for (;;) {
    const text = render();
    if (bytes(text) <= budget) return text;
    const site = arraySites(doc)
      .filter((s) => s.list.length > 0)
      .sort((a, b) => b.size - a.size)[0];
    if (!site) return text;
    // Drop in proportion to the excess, at least one entry, so a long list is cut in a few passes.
    const excess = bytes(text) - budget;
    const drop = Math.min(site.list.length, Math.max(1, Math.ceil((site.list.length * excess) / Math.max(site.size, 1))));
    site.holder[site.key] = site.list.slice(0, site.list.length - drop);
    cut[site.key] = (cut[site.key] ?? 0) + drop;
  }
};
