import * as z from "zod/mini";
import { renew } from "../../domain/reservations/own.ts";
import type { ReservationView } from "../../domain/reservations/reservation-view.ts";
import { defineCommand } from "../kernel/command.ts";
import { authenticatedErrorsWith, ownCredential } from "../kernel/credential.ts";
import { ENV, line, ttlSchema, VIEW } from "./reserve-flags.ts";
import { ownInput, ownSchema } from "./reserve-own.ts";

const renewSchema = z.extend(ownSchema, { ttl: ttlSchema });
export default defineCommand({
  name: "agent-reserve-cli renew",
  summary: "extend your live reservations to now + --ttl",
  description: "An expired or released reservation is not revived (NOT_FOUND): reserve again, which checks for conflicts.",
  schema: renewSchema,
  writes: "the expiry of your reservations.",
  output: `{"renewed":[${VIEW}…]}`,
  errors: authenticatedErrorsWith("NOT_FOUND", "UNSUPPORTED"),
  env: ENV,
  examples: ["agent-reserve-cli renew --agent-id builder-1 --ttl 3600"],
  needs: { deps: "store", credential: ownCredential },
  run: async (o, deps) => renew(deps, { ...(await ownInput(o, deps)), ttlS: o.ttl }),
  render: (r: { renewed: ReservationView[] }) =>
    r.renewed.length === 0 ? "nothing to renew" : r.renewed.map((v) => `renewed ${line(v)}`).join("\n"),
});
