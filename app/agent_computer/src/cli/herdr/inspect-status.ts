import { z } from "zod";
import type { HerdrIntegration, HerdrServerStatus } from "../../adapters/herdr/reader.ts";
import { viaHerdr } from "../../domain/herdr/herdr-failure.ts";
import { defineCommand } from "../kernel/command.ts";
import type { CommandContext } from "../kernel/context.ts";
import { neutralizeLine } from "../kernel/output.ts";
import { INSPECT_ENV, INSPECT_ERRORS, readerFor } from "./inspect-shared.ts";

export const inspectStatusOptionsSchema = z.object({});
type InspectStatusOptions = z.output<typeof inspectStatusOptionsSchema>;

interface InspectStatus {
  server: HerdrServerStatus;
  integrations: HerdrIntegration[];
}

const runStatus = async (_options: InspectStatusOptions, ctx: CommandContext): Promise<InspectStatus> => {
  const reader = await readerFor(ctx);
  const [server, integrations] = await Promise.all([viaHerdr(reader.status()), viaHerdr(reader.integrations())]);
  return { server, integrations };
};

const render = (r: InspectStatus): string => {
  const s = r.server;
  const lines = [
    s.running
      ? `herdr server: running ${neutralizeLine(s.version ?? "?")} (protocol ${s.protocol ?? "?"}${s.compatible === false ? ", NOT compatible with this herdr CLI" : ""})`
      : "herdr server: not running",
    `socket: ${neutralizeLine(s.socket ?? "-")}${s.session ? ` · session ${neutralizeLine(s.session)}` : ""}`,
    "integrations:",
    ...r.integrations.map(
      (i) => `  ${neutralizeLine(i.label)}: ${neutralizeLine(i.state)}${i.path ? ` (${neutralizeLine(i.path)})` : ""}`,
    ),
  ];
  if (r.integrations.length === 0) lines.push("  none reported");
  return lines.join("\n");
};

export default defineCommand({
  name: "herdr-inspect-cli status",
  summary: "whether a Herdr server answers, its version and protocol, and each agent integration's state",
  description:
    "Runs `herdr status --json` and `herdr integration status` and reports them. Exit 0 also when no server runs " +
    "(server.running false): that is an answer, not a failure.",
  schema: inspectStatusOptionsSchema,
  writes: "nothing.",
  output:
    '{"server":{"running","version","protocol","compatible","socket","session","restartNeeded","clientVersion","clientProtocol"},' +
    '"integrations":[{"label","state","path"}]}',
  errors: INSPECT_ERRORS,
  env: INSPECT_ENV,
  examples: ["herdr-inspect-cli status", "herdr-inspect-cli status --json | jq .server.running"],
  run: runStatus,
  render,
});
