// Every error code Herdr 0.8.0-0.9.x emits has a kind and a stable error a user can act on; which failures are
// retried (a cut call, Herdr's server_unavailable) and which fail at once (an answer breaking Herdr's record shape,
// naming the field); and exactly which prompt texts are refused because Herdr would not take them as text.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createHerdr,
  HerdrError,
  type HerdrErrorKind,
  misreadPromptText,
} from "../../app/agent_computer/src/adapters/herdr/client.ts";
import { KNOWN_HERDR_CODES, kindForHerdrCode } from "../../app/agent_computer/src/adapters/herdr/failure-kinds.ts";
import { herdrFailure } from "../../app/agent_computer/src/domain/herdr/herdr-failure.ts";
import { surviving } from "../../app/agent_computer/src/domain/herdr/herdr-reconnect.ts";
import type { AppError } from "../../app/agent_computer/src/errors.ts";
import { HERDR_ERROR_CODES } from "../fixtures/fake-herdr/protocol.ts";

const herdrError = (kind: HerdrErrorKind, code?: string, message = "m"): HerdrError =>
  new HerdrError(kind, message, { command: "herdr agent prompt", herdrCode: code });

describe("Herdr error codes", () => {
  it("maps every code Herdr 0.8.0-0.9.x emits (the double's list) to a kind other than unknown", () => {
    const unmapped = HERDR_ERROR_CODES.filter((code) => kindForHerdrCode(code) === "unknown");
    expect(unmapped).toEqual([]);
    expect([...HERDR_ERROR_CODES].sort()).toEqual([...KNOWN_HERDR_CODES].sort());
  });

  it.each([
    ["server_unavailable", "transient"],
    ["internal_error", "herdr_internal"],
    ["confirmation_required", "confirmation_required"],
    ["agent_blocked", "blocked"],
    ["agent_not_ready", "not_ready"],
    ["workspace_not_found", "not_found"],
    ["protocol_mismatch", "version_mismatch"],
  ] as const)("%s is %s", (code, kind) => {
    expect(kindForHerdrCode(code)).toBe(kind);
  });

  it("turns each into a stable error that says what happened and what to do", () => {
    const seen = (kind: HerdrErrorKind, code: string, message = "m"): AppError =>
      herdrFailure(herdrError(kind, code, message)) as AppError;
    expect(seen("transient", "server_unavailable")).toMatchObject({ code: "UNAVAILABLE", hint: expect.stringMatching(/retry/) });
    expect(seen("blocked", "agent_blocked")).toMatchObject({
      code: "HERDR_REFUSED",
      message: expect.stringMatching(/nothing was typed/),
    });
    expect(seen("confirmation_required", "confirmation_required")).toMatchObject({
      code: "HERDR_REFUSED",
      hint: expect.stringMatching(/worktree group/),
    });
    expect(seen("herdr_internal", "internal_error")).toMatchObject({
      code: "HERDR_REFUSED",
      message: expect.stringMatching(/Herdr failed inside/),
    });
    const newer = "client protocol 22 is newer than server protocol 20; restart the Herdr server to use this client";
    expect(seen("version_mismatch", "protocol_mismatch", newer)).toMatchObject({
      code: "UNAVAILABLE",
      hint: expect.stringMatching(/herdr server restart/),
    });
    const older = "client protocol 19 is older than server protocol 20; update this herdr binary";
    expect(seen("version_mismatch", "protocol_mismatch", older)).toMatchObject({
      hint: expect.stringMatching(/update that binary/),
    });
  });
});

describe("which Herdr failures a read rides out", () => {
  const attempts = async (error: HerdrError, budgetMs: number): Promise<{ calls: number; ms: number }> => {
    let calls = 0;
    const began = Date.now();
    await surviving(async () => {
      calls += 1;
      throw error;
    }, Date.now() + budgetMs).catch(() => undefined);
    return { calls, ms: Date.now() - began };
  };

  it("retries a cut call and Herdr's server_unavailable within the deadline", async () => {
    expect((await attempts(herdrError("interrupted"), 700)).calls).toBeGreaterThan(1);
    expect((await attempts(herdrError("transient", "server_unavailable"), 700)).calls).toBeGreaterThan(1);
  });

  it("fails an answer that breaks Herdr's record shape at once, without waiting out the deadline", async () => {
    const outcome = await attempts(herdrError("protocol"), 3_000);
    expect(outcome.calls).toBe(1);
    expect(outcome.ms).toBeLessThan(1_000);
  });

  it("names the field of a record that fails its schema, never its value", async () => {
    const dir = mkdtempSync(join(process.env.AC_TEST_ROOT ?? "/tmp", "stub-herdr-"));
    const record =
      '{"agent_status":"s3cret","focused":false,"pane_id":"w1:p1","tab_id":"w1:t1","terminal_id":"term_1","workspace_id":"w1"}';
    writeFileSync(join(dir, "herdr"), `#!/bin/sh\necho '{"id":"x","result":{"agents":[${record}],"type":"agent_list"}}'\n`);
    chmodSync(join(dir, "herdr"), 0o755);
    const error = await createHerdr({ env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir } })
      .listAgents()
      .catch((caught: unknown) => caught as HerdrError);
    expect(error).toMatchObject({ kind: "protocol" });
    expect((error as HerdrError).message).toMatch(/agents\[0\]\.agent_status \(invalid_value\)/);
    expect((error as HerdrError).message).not.toContain("s3cret");
  });
});

describe("prompt text Herdr would not take as text", () => {
  // Herdr strips `--session <name>` and `--session=<name>` from anywhere in argv; any other text is verbatim.
  it.each([
    ["--session", true],
    ["--session=x", true],
    ["--session=", true],
    ["--sessions", false],
    ["--session-id 4", false],
    ["-- session", false],
    [" --session", false],
    ["--help", false],
    ["-v", false],
    ["--wait", false],
    ["- item", false],
    ["-", false],
    ["plain", false],
  ])("%j refused: %s", (text, refused) => {
    expect(misreadPromptText(text)).toBe(refused);
  });
});
