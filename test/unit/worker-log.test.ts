// The worker's log is read by people tailing its stderr: a line stays one exact JSON object, and text from elsewhere
// in it (a job directory, a script's error) cannot steer their terminal.
import { expect, test } from "vitest";
import { createLogger } from "../../app/agent_computer/src/worker/log.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these characters
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060\u2066-\u2069\ufeff]/u;

test("a log line with hostile text is one line of exact JSON with no raw control, bidi or zero-width character", () => {
  const hostile = "run failed in /jobs/\u001b]0;PWNED\u0007\u009b2J\u202eexe.ts\u200b\u2028\nnext";
  const lines: string[] = [];
  createLogger((line) => lines.push(line), "executor").log("error", hostile, { dir: hostile });
  expect(lines).toHaveLength(1);
  const line = lines[0] as string;
  expect(line.endsWith("\n")).toBe(true);
  expect(line.slice(0, -1)).not.toContain("\n");
  expect(line).not.toMatch(RAW);
  expect(JSON.parse(line)).toMatchObject({ level: "error", service: "executor", msg: hostile, dir: hostile });
});
