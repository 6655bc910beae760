// Verification receipts: what one verification ran and how each phase ended, kept on this host (0600, durable) so a
// writer's release can cite one by id. A receipt holds exit codes, durations and bounded output tails; no credential.

import type { StepOutcome } from "../../adapters/bwrap.ts";
import type { HerdrStateDirs } from "../../local/herdr-state.ts";
import { readJson, writeJsonAtomic } from "../../local/herdr-state.ts";
import type { PhaseKind } from "./verify-plan.ts";

export const VERIFICATION_ID_PATTERN = /^vrf_[0-9a-f]{32}$/;

/** One phase as the sandbox ran it: what it was, and how it ended. */
export interface PhaseRecord extends StepOutcome {
  kind: PhaseKind;
  name: string;
  argv: string[];
  network: boolean;
}

export interface VerificationReceipt {
  version: 1;
  id: string;
  lease_id: string;
  worktree: string;
  branch: string;
  base_commit: string;
  commit: string;
  recipe_path: string;
  recipe_sha256: string;
  python_locks: string[];
  web_bootstrap: boolean;
  status: "passed" | "failed";
  started_at: string;
  finished_at: string;
  phases: PhaseRecord[];
  /** Steps not run because an earlier phase failed. */
  skipped: string[];
}

export const saveVerification = (dirs: HerdrStateDirs, receipt: VerificationReceipt): void => {
  writeJsonAtomic(dirs.verifications, `${receipt.id}.json`, receipt, { durable: true });
};

export const readVerification = (dirs: HerdrStateDirs, id: string): VerificationReceipt | undefined =>
  VERIFICATION_ID_PATTERN.test(id) ? readJson<VerificationReceipt>(dirs.verifications, `${id}.json`) : undefined;
