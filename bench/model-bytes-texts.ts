// The texts other parties write in bench/model-bytes.ts: three messages to the model's agent (workflow a) and the
// coordinator's request and the reviewer's answer (workflow b). Ordinary lengths for such notes.

export const TASKS_A: readonly (readonly [sender: string, body: string])[] = [
  [
    "bob",
    "PR 41 (retry loop in src/http/client.ts) is ready for review. The change replaces the fixed 1 s sleep with the " +
      "backoff table from docs/retries.md; tests in test/http/retry.test.ts.",
  ],
  [
    "carol",
    "The nightly run failed again in test/http/retry.test.ts > 'gives up after the last attempt' (3 of the last 5 " +
      "nights). Can you check whether your retry change fixes it, and tell me before 17:00 so I can cut the release?",
  ],
  [
    "dave",
    "FYI: I am moving the CI cache to the new bucket this afternoon; builds between 14:00 and 14:30 may be slow. " +
      "Nothing to do on your side.",
  ],
];

export const TASKS_B = {
  request:
    "Review the change on branch t7-retry against main: src/http/client.ts and test/http/retry.test.ts. Report " +
    "correctness problems first, then missing tests, each with file:line. Do not edit files.",
  review:
    "Review of t7-retry against main\n" +
    "Correctness:\n" +
    "1. src/http/client.ts:88 - the backoff index is read after the increment, so the first retry waits 30 s, not " +
    "5 s. Read it before incrementing.\n" +
    "2. src/http/client.ts:104 - a 429 without Retry-After falls through to the generic branch and is retried " +
    "immediately; treat it like a 503.\n" +
    "Missing tests:\n" +
    "3. test/http/retry.test.ts - nothing covers Retry-After given as an HTTP date.\n" +
    "4. test/http/retry.test.ts:40 - the 'gives up' case uses real timers; with fake timers it runs in 5 ms and is " +
    "deterministic.\n" +
    "With 1 and 4 fixed, no flaky retry remains in this suite as far as I can see.",
};
