import { editDistance } from "../../close-words.ts";

/**
 * "\n(Did you mean --name?)" when some candidates are close to what was typed (the closest ones, at most half the
 * word changed), else "". Candidates are only what this very command accepts, so a suggestion is always valid here.
 */
export const didYouMean = (typed: string, candidates: readonly string[]): string => {
  const word = typed.replace(/^-+/, "");
  const close = [...new Set(candidates)]
    .map((name) => ({ name, d: editDistance(word, name.replace(/^-+/, "")) }))
    .filter(({ name, d }) => {
      const length = name.replace(/^-+/, "").length;
      return d > 0 && length > 1 && (length - d) / length > 0.4;
    })
    .sort((x, y) => x.d - y.d || x.name.localeCompare(y.name));
  const best = close.filter(({ d }) => d === close[0]?.d).map(({ name }) => name);
  return best.length > 0 ? `\n(Did you mean ${best.join(", ")}?)` : "";
};
