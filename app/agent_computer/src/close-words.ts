/**
 * Levenshtein distance between two words; past `limit` it stops early and answers limit + 1, so comparing a typo
 * with thousands of names costs little more than a glance at each.
 */
export const editDistance = (a: string, b: string, limit = Number.POSITIVE_INFINITY): number => {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const cell = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitute);
      current.push(cell);
      if (cell < best) best = cell;
    }
    if (best > limit) return limit + 1;
    previous = current;
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
