// Options and contract text shared by the controller subcommands.
import * as z from "zod/mini";
import type { ControllerView } from "../../domain/herdr/controller-lease.ts";
import { DEFAULT_CONTROLLER_TTL_SECONDS } from "../../domain/herdr/controller-lease.ts";
import { type ErrorCode, STORE_ERRORS } from "../../errors.ts";
import { oneLine } from "../kernel/one-line.ts";
import { boundedInt, HERDR_READ_ERRORS, sha256Schema } from "./shared.ts";

export const ttlSchema = boundedInt(60, 1800, DEFAULT_CONTROLLER_TTL_SECONDS).check(
  z.describe("lease lifetime in seconds; renew before it ends"),
);

export const authorityOptionsSchema = z.object({
  authorityRef: oneLine(500, {
    min: 1,
    describe: "durable reference to what authorises this coordination (issue, ticket, spec URL)",
  }),
  authoritySha256: sha256Schema.check(z.describe("the SHA-256 of that authority document as you accepted it")),
  ttlSeconds: ttlSchema,
});
export type AuthorityOptions = z.output<typeof authorityOptionsSchema>;

/** The errors of binding a controller lease to this caller (acquire, resume, takeover), its refusals in between. */
export const bindingErrors = (...refusals: ErrorCode[]): readonly ErrorCode[] => [
  "INVALID_INPUT",
  "CONTROLLER_CONTEXT_MISSING",
  "CONTROLLER_AUTH_FAILED",
  ...refusals,
  "RESERVATION_BUSY",
  ...HERDR_READ_ERRORS,
  ...STORE_ERRORS,
  "INTERNAL",
];

export const CONTROLLER_FIELDS =
  '"controller_id","lease_ref":"<controller_id>:g<generation>","generation","state":"active|released","expires_at",' +
  '"pane_id","agent_name","agent_kind","cwd","process_bound","credential_file"?(path only)';
const NEVER_PRINTED = "The lease id and fence token are never printed (lease_ref is a public name, not a credential).";
export const CONTROLLER_OUTPUT = `{${CONTROLLER_FIELDS}}. ${NEVER_PRINTED}`;
export const TAKEOVER_OUTPUT =
  `{${CONTROLLER_FIELDS},"predecessor":{"lease_ref","evidence":"released|expired|pane_gone|agent_gone|done|blocked|process_gone","detail"}}. ` +
  NEVER_PRINTED;

export const renderController = (v: ControllerView): string =>
  [
    `controller ${v.controller_id}: ${v.state} (lease ${v.lease_ref}) until ${v.expires_at}`,
    `  bound to ${v.agent_name} (${v.agent_kind}) in pane ${v.pane_id}; process ${v.process_bound ? "bound" : "not bound (no procfs)"}`,
    ...(v.credential_file ? [`  credential: ${v.credential_file} (0600; never print or copy it)`] : []),
  ].join("\n");
