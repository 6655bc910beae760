// The edit distance behind every "did you mean": exact on small words (checked against a plain table), and its early
// exits (length gap, character counts, a row past the limit) never hide a word within the limit.
import { expect, test } from "vitest";
import { editDistance, nearestWords } from "../../app/agent_computer/src/close-words.ts";

const plain = (a: string, b: string): number => {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      (d[i] as number[])[j] = Math.min(
        ((d[i - 1] as number[])[j] as number) + 1,
        ((d[i] as number[])[j - 1] as number) + 1,
        ((d[i - 1] as number[])[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
  return (d[a.length] as number[])[b.length] as number;
};

test("the distance is Levenshtein's, and a limit only caps it at limit + 1", () => {
  const words = ["", "a", "ab", "ba", "alice", "alcie", "alicia", "bob", "fleet-9999", "fleat-9999", "fleet-1234", "--verbose"];
  for (const a of words)
    for (const b of words) {
      const exact = plain(a, b);
      expect(editDistance(a, b), `${a} ${b}`).toBe(exact);
      for (const limit of [0, 1, 2, 3]) expect(editDistance(a, b, limit), `${a} ${b} ${limit}`).toBe(Math.min(exact, limit + 1));
    }
});

test("nearestWords keeps the nearest within the limit, ties by name, never the word itself", () => {
  expect(nearestWords("alcie", ["alice", "alicia", "alcie", "bob"], 2)).toEqual(["alice", "alicia"]);
  expect(nearestWords("alcie", ["alice", "alicia"], 1)).toEqual([]);
  expect(nearestWords("alica", ["alice", "alicia"], 2)).toEqual(["alice", "alicia"]);
  expect(nearestWords("carl", ["carol", "carla", "karl"], 2)).toEqual(["carla", "carol", "karl"]);
  expect(nearestWords("zed", ["alice", "bob"], 2)).toEqual([]);
});
