// Edit distance between words, fast enough to compare a typo with every registered name on the error path of a
// one-shot command (which runs without JIT): a character-count bound rejects most names before any table is filled.

const counts = new Int32Array(65_536);

/**
 * A lower bound of the edit distance: after cancelling the characters the words share, the larger number left over
 * (each edit fixes at most one character on each side).
 */
const bagDistance = (a: string, b: string): number => {
  for (let i = 0; i < a.length; i++) counts[a.charCodeAt(i)] = (counts[a.charCodeAt(i)] ?? 0) + 1;
  let onlyB = 0;
  for (let i = 0; i < b.length; i++) {
    const code = b.charCodeAt(i);
    if ((counts[code] ?? 0) > 0) counts[code] = (counts[code] ?? 0) - 1;
    else onlyB++;
  }
  let onlyA = 0;
  for (let i = 0; i < a.length; i++) {
    const code = a.charCodeAt(i);
    onlyA += counts[code] ?? 0;
    counts[code] = 0;
  }
  return Math.max(onlyA, onlyB);
};

/**
 * Levenshtein distance between two words (UTF-16 units); past `limit` it stops early and answers limit + 1, so
 * comparing a typo with thousands of names costs little more than a glance at each.
 */
export const editDistance = (a: string, b: string, limit = Number.POSITIVE_INFINITY): number => {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (Number.isFinite(limit) && bagDistance(a, b) > limit) return limit + 1;
  let previous = new Int32Array(b.length + 1);
  let current = new Int32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] ?? 0) + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1);
      const cell = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitute);
      current[j] = cell;
      if (cell < best) best = cell;
    }
    if (best > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length] ?? 0;
};

/**
 * The candidates nearest to `typed` among those at most `limit` edits away (never `typed` itself), nearest first and
 * then by name; ties at the nearest distance are all kept.
 */
export const nearestWords = (typed: string, candidates: Iterable<string>, limit: number): string[] => {
  const near = [...new Set(candidates)]
    .map((word) => ({ word, d: editDistance(typed, word, limit) }))
    .filter(({ d }) => d > 0 && d <= limit)
    .sort((x, y) => x.d - y.d || x.word.localeCompare(y.word));
  return near.filter(({ d }) => d === near[0]?.d).map(({ word }) => word);
};
