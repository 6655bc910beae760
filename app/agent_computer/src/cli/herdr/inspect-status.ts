import * as z from "zod/mini";
import type { HerdrIntegration, HerdrServerStatus } from "../../adapters/herdr/reader.ts";
import { viaHerdr } from "../../domain/herdr/herdr-failure.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { neutralizeFields } from "../kernel/output.ts";
import { INSPECT_ENV, INSPECT_ERRORS, readerFor } from "./inspect-shared.ts";

export const inspectStatusOptionsSchema = z.object({});
type InspectStatusOptions = z.output<typeof inspectStatusOptionsSchema>;

interface InspectStatus {
  server: HerdrServerStatus;
  integrations: HerdrIntegration[];
}

const runStatus = async (_options: InspectStatusOptions, { ctx }: DepsOf<"none">): Promise<InspectStatus> => {
  const reader = await readerFor(ctx);
  const [server, integrations] = await Promise.all([viaHerdr(reader.status()), viaHerdr(reader.integrations())]);
  return { server, integrations };
};

/** Which side to bring in line when the herdr CLI and its server speak different protocols. */
const mismatchFix = (s: HerdrServerStatus): string =>
  s.clientProtocol !== null && s.protocol !== null && s.clientProtocol > s.protocol
    ? "restart the Herdr server so it runs the release of the herdr on PATH (herdr server restart)"
    : "update the herdr binary on PATH to the server's release (a stale herdr earlier on PATH?)";

// Every field is Herdr's text: the records are shown through neutralizeFields, none of them raw.
const render = (raw: InspectStatus): string => {
  const r = neutralizeFields(raw);
  const s = r.server;
  const lines = [
    s.running ? `herdr server: running ${s.version ?? "?"} (protocol ${s.protocol ?? "?"})` : "herdr server: not running",
    `herdr CLI: ${s.clientVersion ?? "?"} (protocol ${s.clientProtocol ?? "?"})`,
    ...(s.compatible === false ? [`NOT compatible: every herdr call fails protocol_mismatch; ${mismatchFix(raw.server)}`] : []),
    `socket: ${s.socket ?? "-"}${s.session ? ` · session ${s.session}` : ""}`,
    "integrations:",
    ...r.integrations.map((i) => `  ${i.label}: ${i.state}${i.path ? ` (${i.path})` : ""}`),
  ];
  if (r.integrations.length === 0) lines.push("  none reported");
  return lines.join("\n");
};

export default defineCommand({
  name: "herdr-inspect-cli status",
  summary: "whether a Herdr server answers, its and the herdr CLI's version and protocol, and each integration's state",
  description:
    "Runs `herdr status --json` and `herdr integration status` and reports them. Exit 0 also when no server runs " +
    "(server.running false): that is an answer, not a failure. A CLI and server of different protocols are shown " +
    "with the fix (restart the server, or update the herdr on PATH). Integration paths follow CLAUDE_CONFIG_DIR, " +
    "CODEX_HOME, PI_CODING_AGENT_DIR and COPILOT_HOME when set.",
  schema: inspectStatusOptionsSchema,
  writes: "nothing.",
  output:
    '{"server":{"running","version","protocol","compatible","socket","session","restartNeeded","clientVersion","clientProtocol"},' +
    '"integrations":[{"label","state","path"}]}',
  errors: INSPECT_ERRORS,
  env: INSPECT_ENV,
  examples: ["herdr-inspect-cli status", "herdr-inspect-cli status --json | jq .server.running"],
  needs: { deps: "none" },
  run: runStatus,
  render,
});
