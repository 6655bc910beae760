// Contract text shared by ask, ask-many and collect, so the three helps cannot drift apart.
import type { ErrorCode } from "../../errors.ts";
import { authorityErrorsWith } from "./shared.ts";

export const HANDOFF_OUTPUT =
  '{"mode":"all|first","results":[{"target","receipt","state":"completed|pending|reserved|failed","status"?,' +
  '"state_change_seq"?,"output"?(untrusted text),"stage"?:"delivery|collect","error"?:"delivery_ambiguous|delivery_failed|' +
  'identity_changed|cursor_superseded|abandoned|controller_fenced|timeout"}],"pending_receipts":[]}. Exit 0 whenever the ' +
  "protocol ran: read each result's state.";

export const RESULT_STATES =
  "Results: completed (status idle, done or blocked, with state_change_seq and output); pending (delivered; collect later " +
  "with its receipt); reserved with error delivery_ambiguous (Herdr never confirmed the agent started working: the request " +
  "may or may not have arrived; the receipt blocks its target until abandon, once you have looked at the agent); failed " +
  "(delivery_failed: certainly not sent, e.g. Herdr refused it as agent_blocked; identity_changed: the agent left its pane; cursor_superseded: it moved on while " +
  "its output was read).";

export const HANDOFF_WRITES =
  "one durable receipt per target in this host's state dir (before anything is typed), then its state changes; the " +
  "request text is typed into each leased agent's pane. No request text or output is stored.";

export const HANDOFF_ERRORS: readonly ErrorCode[] = authorityErrorsWith(
  "TARGET_NOT_LEASED",
  "RECEIPT_OUTSTANDING",
  "IDENTITY_CHANGED",
  "AGENT_NOT_SETTLED",
  "CONFLICT",
);
