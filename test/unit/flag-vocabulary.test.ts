// One flag name per concept on every binary (older spellings stay valid as aliases). Walks every binary and subcommand in
// process: a concept's key must be given by its canonical flag with only its allowed aliases, and no other flag of
// any command may use one of the concept's other spellings. A new command that calls the acting agent --from, or a
// job --automation-job-id, fails here.
import { describe, expect, test } from "vitest";
import { commandFlags } from "../../app/agent_computer/src/cli/kernel/flags.ts";
import { allCommands } from "../helpers/registry.ts";

interface Concept {
  concept: string;
  key: string;
  flag: string;
  /** Alias spellings, each with the binaries that may use it (undefined: any binary). */
  aliases: Record<string, readonly string[] | undefined>;
  /** Other spellings of the concept that no command may use, as a flag or an alias of another key. */
  forbidden: readonly string[];
}

const SUBJECT_ID = ["--id"];

const CONCEPTS: Concept[] = [
  {
    concept: "the acting agent",
    key: "agentId",
    flag: "--agent-id",
    aliases: { "--from": ["agent-send-cli"], "--name": ["register-agent-cli", "agent-identity-cli"] },
    forbidden: ["--from", "--name", "--agent", "--agent-name", "--sender", "--as"],
  },
  {
    concept: "capabilities",
    key: "capabilities",
    flag: "--capabilities",
    aliases: { "--caps": undefined },
    forbidden: ["--caps", "--cap", "--capability"],
  },
  {
    concept: "an automation job",
    key: "jobId",
    flag: "--job-id",
    aliases: {
      "--automation-job-id": undefined,
      "--id": ["cancel-automation-job-cli", "run-automation-job-cli", "show-automation-job-cli"],
    },
    forbidden: ["--automation-job-id", "--job", "--automation-job", ...SUBJECT_ID],
  },
  { concept: "a run", key: "runId", flag: "--run-id", aliases: {}, forbidden: ["--run", ...SUBJECT_ID] },
  {
    concept: "a trigger",
    key: "triggerId",
    flag: "--trigger-id",
    aliases: { "--id": ["cancel-trigger-cli"] },
    forbidden: ["--trigger", ...SUBJECT_ID],
  },
  { concept: "a message", key: "messageId", flag: "--message-id", aliases: {}, forbidden: ["--message", ...SUBJECT_ID] },
  { concept: "a session", key: "sessionId", flag: "--session-id", aliases: {}, forbidden: ["--session", ...SUBJECT_ID] },
  { concept: "a token file", key: "tokenFile", flag: "--token-file", aliases: {}, forbidden: ["--token", "--token-path"] },
];

/** Spellings that look like a concept's but name something else; each says why. Stale entries fail the test. */
const NOT_THE_CONCEPT: Record<string, string> = {
  "herdr-lease-cli reviewer start --name": "the name the new reviewer agent gets in Herdr, not the acting agent",
  "herdr-lease-cli writer start --name": "the name the new writer agent gets in Herdr, not the acting agent",
  "agent-wake-cli --run": "a boolean: run the wake watcher in the foreground, not a run id",
  "agent-computer-admin restore --from": "the backup file to restore from, not the acting agent (restore acts as no agent)",
};

const commands = await allCommands();

describe("one flag name per concept", () => {
  test("the table covers concepts the binaries actually use", () => {
    const keys = new Set(commands.flatMap((c) => commandFlags(c.def).map((f) => f.key)));
    for (const key of ["agentId", "capabilities", "jobId", "runId", "triggerId", "messageId", "tokenFile"]) {
      expect(keys.has(key), key).toBe(true);
    }
  });

  test.each(commands.map((c) => [[c.binary, ...c.words].join(" "), c] as const))("%s", (label, entry) => {
    const problems: string[] = [];
    for (const flag of commandFlags(entry.def)) {
      const concept = CONCEPTS.find((c) => c.key === flag.key);
      if (concept) {
        if (flag.name !== concept.flag) problems.push(`${flag.key} is ${flag.name}, not ${concept.flag}`);
        for (const alias of flag.aliases) {
          if (!(alias in concept.aliases)) problems.push(`${concept.flag} has alias ${alias}, not one of the table's`);
          const only = concept.aliases[alias];
          if (only && !only.includes(entry.binary))
            problems.push(`${alias} for ${concept.concept} is only for ${only.join(", ")}`);
        }
      }
      for (const spelled of [flag.name, ...flag.aliases]) {
        // An alias the flag's own concept allows (--id where it is the subject) was checked above.
        if (concept && spelled in concept.aliases) continue;
        for (const other of CONCEPTS.filter((c) => c !== concept && c.forbidden.includes(spelled))) {
          if (NOT_THE_CONCEPT[`${label} ${spelled}`]) continue;
          problems.push(`${spelled} (key ${flag.key}) spells ${other.concept}: use ${other.flag}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  test("every exemption still names a flag that exists", () => {
    const spelled = new Set(
      commands.flatMap((c) =>
        commandFlags(c.def).flatMap((f) => [f.name, ...f.aliases].map((s) => `${[c.binary, ...c.words].join(" ")} ${s}`)),
      ),
    );
    for (const key of Object.keys(NOT_THE_CONCEPT)) expect(spelled.has(key), key).toBe(true);
  });
});
