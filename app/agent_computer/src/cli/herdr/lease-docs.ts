// Contract text shared by the lease subcommands.
import type { ErrorCode } from "../../errors.ts";
import { authorityErrorsWith } from "./shared.ts";

export const LEASE_OUTPUT =
  '{"lease_id","type":"reviewer|writer|adopted","state","agent_name","agent_kind","cwd","pane_id","purpose","created_at",' +
  '"updated_at","writer"?:{"worktree","branch","base_commit","head","owned_scopes","blocked_scopes"},"failure"?,"verification_id"?}';

export const CLOSE_OUTPUT = `{"lease":${LEASE_OUTPUT},"capture_sha256","observed_seq"}`;

/** The errors of closing a leased pane; a writer's release adds its Git re-check. */
export const closeErrors = (...gitChecks: ErrorCode[]): readonly ErrorCode[] =>
  authorityErrorsWith("CONFLICT", ...gitChecks, "RECEIPT_OUTSTANDING", "IDENTITY_CHANGED", "AGENT_NOT_SETTLED", "CURSOR_MOVED");

export const CLOSE_RULES =
  "The agent must be exactly the leased identity (pane, name, kind, cwd; not the terminal id, which a Herdr handoff changes), idle or done, at exactly " +
  "--expected-seq (the state_change_seq you last saw, e.g. from a collect result), with no reserved or pending receipt; " +
  "its output is captured and identity and cursor must be unchanged after the capture. Then the fence is checked, the " +
  "lease is marked closing (no request is admitted any more) and only the leased pane is closed. Herdr's pane close takes " +
  "no expected cursor, so the last check and the close are not one atomic step: do not type into that pane meanwhile.";
