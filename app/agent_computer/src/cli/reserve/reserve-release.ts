import { release } from "../../domain/reservations/own.ts";
import { defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential } from "../kernel/credential.ts";
import { ENV } from "./reserve-flags.ts";
import { ownInput, ownSchema } from "./reserve-own.ts";

export default defineCommand({
  name: "agent-reserve-cli release",
  summary: "end your reservations now",
  description: "They stop counting at once, for reserve, check and the git guard.",
  schema: ownSchema,
  writes: "the release time of your reservations.",
  output: '{"released":[id…]}',
  errors: authenticatedErrorsWith("NOT_FOUND", "UNSUPPORTED"),
  env: ENV,
  examples: [
    "agent-reserve-cli release --agent-id builder-1",
    "agent-reserve-cli release --agent-id builder-1 --reservation-id rsv_0193a1b2c3d4e5f60718293a4b5c6d7e",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: async (o, deps) => release(deps, await ownInput(o, deps)),
  render: (r: { released: string[] }) => (r.released.length === 0 ? "nothing to release" : `released ${r.released.join(", ")}`),
});
