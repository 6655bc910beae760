import * as z from "zod/mini";
import type { HerdrSession } from "../../adapters/herdr/reader.ts";
import { viaHerdr } from "../../domain/herdr/herdr-failure.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { neutralizeFields } from "../kernel/output.ts";
import { INSPECT_ENV, INSPECT_ERRORS, readerFor } from "./inspect-shared.ts";

export const inspectSessionsOptionsSchema = z.object({});
type InspectSessionsOptions = z.output<typeof inspectSessionsOptionsSchema>;

const runSessions = async (_options: InspectSessionsOptions, { ctx }: DepsOf<"none">): Promise<{ sessions: HerdrSession[] }> => ({
  sessions: await viaHerdr((await readerFor(ctx)).sessions()),
});

// Every field is Herdr's text: the records are shown through neutralizeFields, none of them raw.
const render = (r: { sessions: HerdrSession[] }): string =>
  r.sessions.length === 0
    ? "no Herdr sessions"
    : neutralizeFields(r.sessions)
        .map((s) => `${s.name}${s.isDefault ? " (default)" : ""}: ${s.running ? "running" : "not running"} · ${s.socketPath}`)
        .join("\n");

export default defineCommand({
  name: "herdr-inspect-cli sessions",
  summary: "Herdr's sessions on this machine and whether each server runs",
  description: "Runs `herdr session list --json`.",
  schema: inspectSessionsOptionsSchema,
  writes: "nothing.",
  output: '{"sessions":[{"name","isDefault","running","socketPath"}]}',
  errors: INSPECT_ERRORS,
  env: INSPECT_ENV,
  examples: ["herdr-inspect-cli sessions --json"],
  needs: { deps: "none" },
  run: runSessions,
  render,
});
