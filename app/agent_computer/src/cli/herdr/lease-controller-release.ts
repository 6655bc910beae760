import * as z from "zod/mini";
import { type ControllerView, releaseController } from "../../domain/herdr/controller-lease.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { oneLine } from "../kernel/one-line.ts";
import { CONTROLLER_OUTPUT, renderController } from "./lease-controller-options.ts";
import { authorityErrorsWith, BINDING_ENV, sha256Schema } from "./shared.ts";

export const releaseOptionsSchema = z.object({
  checkpointRef: oneLine(500, {
    min: 1,
    describe: "durable reference to a content-free checkpoint of where coordination stands",
  }),
  checkpointSha256: sha256Schema.check(z.describe("the SHA-256 of that checkpoint")),
});
export type ReleaseOptions = z.output<typeof releaseOptionsSchema>;

const runRelease = async (options: ReleaseOptions, deps: DepsOf<"herdr">): Promise<ControllerView> =>
  releaseController(deps, options);

export default defineCommand({
  name: "herdr-lease-cli controller release",
  summary: "end the controller lease (after a durable checkpoint) and delete this host's credential",
  description:
    "Needs full controller authority. Records the checkpoint reference and digest with the lease, marks it released and " +
    "deletes the binding and credential files. Reviewer, writer and adopted leases are not touched: they stay with the " +
    "controller id for its next acquire.",
  schema: releaseOptionsSchema,
  writes: "the controller lease row (state released, checkpoint); removes this host's binding and credential files.",
  output: CONTROLLER_OUTPUT,
  errors: authorityErrorsWith(),
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli controller release --checkpoint-ref https://github.com/acme/api/issues/7#c9 --checkpoint-sha256 $(sha256sum < checkpoint-c9.md | cut -c1-64)",
  ],
  needs: { deps: "herdr" },
  run: runRelease,
  render: renderController,
});
