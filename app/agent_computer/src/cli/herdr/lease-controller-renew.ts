import * as z from "zod/mini";
import { type ControllerView, renewController } from "../../domain/herdr/controller-lease.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { CONTROLLER_OUTPUT, renderController, ttlSchema } from "./lease-controller-options.ts";
import { authorityErrorsWith, BINDING_ENV } from "./shared.ts";

export const renewOptionsSchema = z.object({ ttlSeconds: ttlSchema });
export type RenewOptions = z.output<typeof renewOptionsSchema>;

const runRenew = async (options: RenewOptions, deps: DepsOf<"herdr">): Promise<ControllerView> =>
  renewController(deps, options.ttlSeconds);

export default defineCommand({
  name: "herdr-lease-cli controller renew",
  summary: "extend the controller lease held by this agent",
  description:
    "Needs full controller authority (this pane, agent and process; the credential file; a current, unexpired fence) and " +
    "sets the expiry to now + --ttl-seconds. An expired lease cannot be renewed: resume it.",
  schema: renewOptionsSchema,
  writes: "the controller lease row's expiry.",
  output: CONTROLLER_OUTPUT,
  errors: authorityErrorsWith(),
  env: BINDING_ENV,
  examples: ["herdr-lease-cli controller renew", "herdr-lease-cli controller renew --ttl-seconds 1800 --json"],
  needs: { deps: "herdr" },
  run: runRenew,
  render: renderController,
});
