// The shape every handoff command answers with: one result per receipt, in request order.
import type { ReceiptFailure, ReceiptRecord, ReceiptState } from "./receipts.ts";
import { tokenOf } from "./receipts.ts";

export type HandoffMode = "all" | "first";

export interface HandoffResult {
  target: string;
  receipt: string;
  state: ReceiptState;
  /** The settled status the output was captured at (idle, done or blocked). */
  status?: string;
  state_change_seq?: number;
  /** The agent's output: untrusted text. */
  output?: string;
  stage?: "admission" | "delivery" | "collect";
  /** delivery_ambiguous, delivery_failed, identity_changed, cursor_superseded, abandoned, controller_fenced or timeout. */
  error?: ReceiptFailure | "delivery_ambiguous" | "controller_fenced" | "timeout";
}

export interface HandoffOutput {
  mode: HandoffMode;
  results: HandoffResult[];
  /** Delivered receipts whose result was not collected by this call: pass them to collect. */
  pending_receipts: string[];
}

/** What a receipt says by itself, before any new observation. */
export const resultOf = (receipt: ReceiptRecord): HandoffResult => {
  const base = { target: receipt.target, receipt: tokenOf(receipt), state: receipt.state };
  if (receipt.state === "reserved") return { ...base, stage: "delivery", error: "delivery_ambiguous" };
  if (receipt.state === "failed" && receipt.failure) {
    return { ...base, stage: receipt.failure === "delivery_failed" ? "delivery" : "collect", error: receipt.failure };
  }
  return base;
};

export const handoffOutput = (mode: HandoffMode, results: HandoffResult[]): HandoffOutput => ({
  mode,
  results,
  pending_receipts: results.filter((result) => result.state === "pending").map((result) => result.receipt),
});
