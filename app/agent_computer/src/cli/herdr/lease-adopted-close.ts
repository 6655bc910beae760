import * as z from "zod/mini";
import { closeAdopted } from "../../domain/herdr/adopt.ts";
import { closeView } from "../../domain/herdr/inventory.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { oneLine } from "../kernel/one-line.ts";
import { CLOSE_OUTPUT, CLOSE_RULES, closeErrors } from "./lease-docs.ts";
import { BINDING_ENV, leaseIdSchema, readLinesSchema, seqSchema, sha256Schema } from "./shared.ts";

export const adoptedCloseOptionsSchema = z.object({
  leaseId: leaseIdSchema.check(z.describe("the adopted lease to close")),
  expectedSeq: seqSchema.check(z.describe("the agent's state_change_seq you last observed")),
  checkpointRef: oneLine(500, { min: 1, describe: "durable, content-free checkpoint of what the agent left" }),
  checkpointSha256: sha256Schema.check(z.describe("SHA-256 of that checkpoint")),
  readLines: readLinesSchema,
});
export type AdoptedCloseOptions = z.output<typeof adoptedCloseOptionsSchema>;

const runAdoptedClose = async (options: AdoptedCloseOptions, deps: DepsOf<"herdr">) =>
  closeView(await closeAdopted(deps, options));

export default defineCommand({
  name: "herdr-lease-cli adopted close",
  summary: "close the pane of an adopted agent through its cleanup-only lease",
  description: `Needs controller authority, an adopted lease of this controller and a durable checkpoint. ${CLOSE_RULES}`,
  schema: adoptedCloseOptionsSchema,
  writes: "the lease state and checkpoint reference/digest; closes one Herdr pane.",
  output: CLOSE_OUTPUT,
  errors: closeErrors(),
  env: BINDING_ENV,
  examples: [
    "herdr-lease-cli adopted close --lease-id lease_5d2b9a1b2c3d4e5f60718293a4b5c6d7 --expected-seq 77 --checkpoint-ref acme/api#5-c1 " +
      "--checkpoint-sha256 $(sha256sum < checkpoint-c1.md | cut -c1-64)",
  ],
  needs: { deps: "herdr" },
  run: runAdoptedClose,
  render: (r) => `${r.lease.agent_name}: ${r.lease.state} at seq ${r.observed_seq}`,
});
