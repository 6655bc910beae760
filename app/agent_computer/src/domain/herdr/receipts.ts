// Handoff receipts: the barrier between a request and its result. A receipt is an opaque lookup key; the record
// holds the target's identity and cursors, never the fence, the request or the output. Records are written
// durably (fsync) because a crash must never forget that a request may have reached an agent.
import { randomUUID } from "node:crypto";
import { AppError } from "../../errors.ts";
import { type HerdrStateDirs, listJson, readJson, writeJsonAtomic } from "../../local/herdr-state.ts";
import type { AgentIdentity } from "./agent-identity.ts";
import { type HerdrDeps, reserve } from "./herdr-deps.ts";
import type { LeaseType } from "./leases.ts";

export type ReceiptState = "reserved" | "pending" | "completed" | "failed";
export type ReceiptFailure = "delivery_failed" | "identity_changed" | "cursor_superseded" | "abandoned";

export interface ReceiptRecord {
  version: 1;
  receipt_id: string;
  controller_id: string;
  target: string;
  target_lease_id: string;
  lease_type: LeaseType;
  identity: AgentIdentity;
  state: ReceiptState;
  created_at: number;
  updated_at: number;
  /** The agent's state_change_seq observed at admission, before anything was typed. */
  before_seq: number;
  /** The cursor at which Herdr confirmed this identity entered working (> before_seq). */
  after_seq: number | null;
  /** The cursor of the settled state the result was captured at (> after_seq). */
  settled_seq: number | null;
  settled_status: string | null;
  failure: ReceiptFailure | null;
}

const PREFIX = "herdr-receipt-v1.";
export const RECEIPT_TOKEN_PATTERN = /^herdr-receipt-v1\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const tokenOf = (receipt: ReceiptRecord): string => `${PREFIX}${receipt.receipt_id}`;

/** A reserved or pending receipt blocks every further request to its target lease. */
export const isOutstanding = (receipt: ReceiptRecord): boolean => receipt.state === "reserved" || receipt.state === "pending";

export const newReceipt = (
  fields: Omit<
    ReceiptRecord,
    "version" | "receipt_id" | "state" | "after_seq" | "settled_seq" | "settled_status" | "failure" | "updated_at"
  >,
): ReceiptRecord => ({
  version: 1,
  receipt_id: randomUUID(),
  state: "reserved",
  after_seq: null,
  settled_seq: null,
  settled_status: null,
  failure: null,
  updated_at: fields.created_at,
  ...fields,
});

export const saveReceipt = (dirs: HerdrStateDirs, receipt: ReceiptRecord): void => {
  writeJsonAtomic(dirs.receipts, `${receipt.receipt_id}.json`, receipt, { durable: true });
};

export const listReceipts = (dirs: HerdrStateDirs): ReceiptRecord[] =>
  listJson<ReceiptRecord>(dirs.receipts).sort((a, b) => b.created_at - a.created_at);

export const outstandingFor = (dirs: HerdrStateDirs, leaseId: string): ReceiptRecord[] =>
  listReceipts(dirs).filter((receipt) => receipt.target_lease_id === leaseId && isOutstanding(receipt));

/** The receipt behind a token, if it is this controller's. */
export const findReceipt = (dirs: HerdrStateDirs, token: string, controllerId: string): ReceiptRecord => {
  const record = RECEIPT_TOKEN_PATTERN.test(token)
    ? readJson<ReceiptRecord>(dirs.receipts, `${token.slice(PREFIX.length)}.json`)
    : undefined;
  if (!record || record.controller_id !== controllerId) {
    throw new AppError("NOT_FOUND", `no receipt ${token} of this controller on this host`);
  }
  return record;
};

/**
 * Moves a receipt on only from one of the expected states (re-read under the receipts lock), so two collectors
 * or a collector and an abandon can never both decide its outcome. Returns the record as it now is.
 */
export const transitionReceipt = (
  deps: HerdrDeps,
  receiptId: string,
  from: readonly ReceiptState[],
  patch: Partial<Pick<ReceiptRecord, "state" | "identity" | "after_seq" | "settled_seq" | "settled_status" | "failure">>,
): Promise<ReceiptRecord> =>
  reserve(deps, ["receipts"], async () => {
    const current = readJson<ReceiptRecord>(deps.dirs.receipts, `${receiptId}.json`);
    if (!current) throw new AppError("INTERNAL", "a receipt record disappeared");
    if (!from.includes(current.state)) return current;
    const next = { ...current, ...patch, updated_at: deps.now() };
    saveReceipt(deps.dirs, next);
    return next;
  });
