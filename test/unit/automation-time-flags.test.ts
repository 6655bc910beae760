// The cron and time flags answer in our words, naming the flag: croner's and zod's own messages never reach a
// user, croner's nicknames are accepted, and --at refuses a date that does not exist instead of rolling it over.
import { describe, expect, test } from "vitest";
import { checkbackOptionsSchema, runCheckback } from "../../app/agent_computer/src/cli/automation/create-checkback-cli.ts";
import { cronOptionsSchema } from "../../app/agent_computer/src/cli/automation/create-cron-schedule-cli.ts";
import type { DepsOf } from "../../app/agent_computer/src/cli/kernel/command.ts";
import type { CommandContext } from "../../app/agent_computer/src/cli/kernel/command-context.ts";
import { readLimited } from "../../app/agent_computer/src/cli/kernel/input.ts";
import { CRON_NICKNAMES, cronProblem, nextTick } from "../../app/agent_computer/src/domain/automation/cron.ts";
import { isAppError } from "../../app/agent_computer/src/errors.ts";
import { resolvePaths } from "../../app/agent_computer/src/paths.ts";

/** Phrases of croner's and zod's own messages: none may appear in what a user reads. */
const LIBRARY_WORDS =
  /CronPattern|Invalid value for|illegal characters|configuration entry|Too small|expected string|received NaN/;
const NOW = Date.UTC(2026, 11, 1, 12);

describe("--cron", () => {
  test.each([...CRON_NICKNAMES, "@DAILY"])("%s is accepted by the schema and the scheduler", (nickname) => {
    expect(cronOptionsSchema.safeParse({ agentId: "a1", cron: nickname }).success).toBe(true);
    expect(cronProblem(nickname, "UTC")).toBeUndefined();
  });

  test("@daily fires at midnight in its zone; @hourly on the hour", () => {
    expect(new Date(nextTick("@daily", "Europe/Berlin", NOW) as number).toISOString()).toBe("2026-12-01T23:00:00.000Z");
    expect(new Date(nextTick("@hourly", "UTC", NOW) as number).toISOString()).toBe("2026-12-01T13:00:00.000Z");
  });

  test.each([
    ["@reboot", "--cron", '"@reboot" is not a nickname this scheduler knows; give 5 fields'],
    ["@every 5m", "--cron", "is not a nickname this scheduler knows"],
    ["* * * * * * *", "--cron", "has 7 field(s); give 5 fields"],
    ["0 25 * * *", "--cron", 'the hour field "25" is not valid: it takes 0-23'],
    ["a b c d e", "--cron", 'the minute field "a" is not valid'],
    ["0 0 32 * *", "--cron", 'the day-of-month field "32" is not valid: it takes 1-31'],
    ["0 0 * 13 *", "--cron", 'the month field "13" is not valid: it takes 1-12 or JAN-DEC'],
    ["0 0 * * MON#6", "--cron", 'the day-of-week field "MON#6" is not valid'],
    ["60 0 0 * * *", "--cron", 'the seconds field "60" is not valid: it takes 0-59'],
    ["*/0 * * * *", "--cron", 'the minute field "*/0" is not valid'],
    ["0 0 31 2 *", "--cron", "never fires"],
  ])("%s: the flag is named and the words are ours", (expr, flag, words) => {
    const problem = cronProblem(expr, "UTC");
    expect(problem?.flag).toBe(flag);
    expect(problem?.problem).toContain(words);
    expect(problem?.problem).not.toMatch(LIBRARY_WORDS);
  });

  test("an unknown zone is a --tz problem, not a --cron one", () => {
    expect(cronProblem("0 9 * * *", "Mars/Base")).toEqual({
      flag: "--tz",
      problem: 'unknown IANA time zone "Mars/Base"; use a name like UTC, Europe/Berlin or America/New_York',
    });
  });

  test.each([
    [{ cron: "" }, ["cron"], "must not be empty"],
    [{ cron: "0 9 * * *", tz: "" }, ["tz"], "must not be empty"],
    [{ cron: "0 9 * * *", misfireWindowSeconds: "abc" }, ["misfireWindowSeconds"], "must be a whole number of seconds"],
    [{ cron: "0 9 * * *", misfireWindowSeconds: "1.5" }, ["misfireWindowSeconds"], "must be a whole number of seconds"],
    [{ cron: "0 9 * * *", misfireWindowSeconds: "5" }, ["misfireWindowSeconds"], "must be at least 10 seconds"],
  ])("schema: %j is refused in our words", (input, path, message) => {
    const parsed = cronOptionsSchema.safeParse({ agentId: "a1", ...input });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => ({ path: i.path, message: i.message }))).toEqual([{ path, message }]);
  });
});

describe("--at", () => {
  const ctx: CommandContext = {
    env: {},
    paths: resolvePaths({ AGENT_COMPUTER_HOME: "/nonexistent" }),
    now: () => NOW,
    store: () => Promise.reject(new Error("validation must refuse before the store is opened")),
    readInput: readLimited,
  };
  // Fake deps: run<Verb> gets what the kernel would build; a store reached means validation passed.
  const refuse = () => Promise.reject(new Error("validation must refuse before the store is opened"));
  const deps = {
    ctx,
    credential: undefined,
    now: () => NOW,
    store: { dialect: "sqlite", read: refuse, write: refuse, close: async () => {} },
  } as unknown as DepsOf<"store">;
  const refusal = async (at: string) => {
    const error = await runCheckback(checkbackOptionsSchema.parse({ agentId: "a1", at }), deps).catch((e: unknown) => e);
    if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
    return { code: error.code, message: error.message };
  };

  test.each([
    ["2027-02-30T09:00:00Z", "day 30 does not exist in 2027-02 (it has 28 days)"],
    ["2027-02-30T00:00Z", "day 30 does not exist in 2027-02 (it has 28 days)"],
    ["2027-02-29T00:00Z", "day 29 does not exist in 2027-02 (it has 28 days)"],
    ["2027-00-10T00:00Z", "month 00 does not exist (01-12)"],
    ["2027-01-00T00:00Z", "day 00 does not exist in 2027-01 (it has 31 days)"],
    ["2027-01-01T12:60Z", "the time of day is out of range (00:00:00-23:59:59)"],
    ["2027-01-01T12:00:60Z", "the time of day is out of range (00:00:00-23:59:59)"],
    ["2027-04-31T09:00:00+02:00", "day 31 does not exist in 2027-04 (it has 30 days)"],
    ["2027-13-01T09:00:00Z", "month 13 does not exist (01-12)"],
    ["2027-01-01T24:00Z", "the time of day is out of range (00:00:00-23:59:59)"],
    ["2027-01-01T10:00:00+24:00", "the zone offset is out of range"],
  ])("%s is not a real time (not rolled over into another day)", async (at, why) => {
    expect(await refusal(at)).toEqual({ code: "INVALID_INPUT", message: `--at: ${at} is not a real time: ${why}` });
  });

  /** What runCheckback answers: the refusal, or "accepted" once it reaches for the store (validation passed). */
  const outcome = async (input: { at?: string; in?: string }) => {
    const error = await runCheckback(checkbackOptionsSchema.parse({ agentId: "a1", ...input }), deps).catch((e: unknown) => e);
    return isAppError(error) ? error.message : "accepted";
  };

  test("a leap day that exists is a real time (refused only for being too far ahead)", async () => {
    expect(await outcome({ at: "2028-02-29T00:00Z" })).toBe("--at: 2028-02-29T00:00Z is more than 366 days ahead");
  });

  test("--at and --in share one bound: at most 366 days ahead, whichever is given", async () => {
    const ahead = (days: number, extraMs = 0) => new Date(NOW + days * 86_400_000 + extraMs).toISOString();
    expect(await outcome({ at: ahead(366) })).toBe("accepted");
    expect(await outcome({ in: "366d" })).toBe("accepted");
    expect(await outcome({ at: ahead(366, 1000) })).toBe(`--at: ${ahead(366, 1000)} is more than 366 days ahead`);
    expect(await outcome({ in: "366d1s" })).toBe("--in: must be at most 366 days");
    expect(await outcome({ at: "9999-12-31T23:59Z" })).toBe("--at: 9999-12-31T23:59Z is more than 366 days ahead");
    expect(await outcome({ in: "99999999999999999999d" })).toBe("--in: must be at most 366 days");
  });
});
