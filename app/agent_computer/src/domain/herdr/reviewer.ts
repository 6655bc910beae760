// Reviewer leases: a dedicated tab rooted at the ticket worktree, an agent started in its root pane, and a
// close that only this lease can perform. Claude reviewers may get an explicit model and effort as Claude's
// own CLI arguments; every other kind refuses extra arguments (no reviewed adapter exists for them).
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { HerdrAgentKind } from "../../adapters/herdr/client.ts";
import { AppError } from "../../errors.ts";
import { type CloseResult, closeLeasedPane } from "./close-leased.ts";
import { loadAuthority } from "./controller-authority.ts";
import { canonicalDir } from "./directories.ts";
import { type HerdrDeps, reserve } from "./herdr-deps.ts";
import { herdrServerOf } from "./herdr-server.ts";
import { heldLeasesNamed, type LeaseRecord, ownedLease, readLease, saveLease } from "./leases.ts";
import { startInDedicatedTab } from "./start-agent.ts";

export const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
const MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:[\]-]{0,63}$/;

export interface LaunchInput {
  name: string;
  kind: HerdrAgentKind;
  cwd: string;
  purpose: string;
  startTimeoutMs: number;
  busyWindowMs: number;
}

/** `--model M` / `--effort E` (also `--flag=value`), for claude only; anything else is refused. */
export const nativeModelArgs = (kind: HerdrAgentKind, words: readonly string[]): string[] => {
  if (words.length === 0) return [];
  if (kind !== "claude") {
    throw new AppError("INVALID_INPUT", `-- NATIVE_ARGS: only claude reviewers take --model/--effort; ${kind} takes none`);
  }
  const pairs = new Map<string, string>();
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as string;
    const [flag, inline] = word.includes("=")
      ? [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)]
      : [word, undefined];
    const value = inline ?? words[++i];
    const valid =
      (flag === "--model" && value !== undefined && MODEL_PATTERN.test(value)) ||
      (flag === "--effort" && value !== undefined && (EFFORTS as readonly string[]).includes(value));
    if (!valid || pairs.has(flag)) {
      throw new AppError(
        "INVALID_INPUT",
        `-- NATIVE_ARGS: expected --model <model> and/or --effort <${EFFORTS.join("|")}> (got ${word})`,
      );
    }
    pairs.set(flag, value as string);
  }
  return [...pairs].flat();
};

export const requireDirectory = (path: string, flag: string): void => {
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isAbsolute(path) || !isDir)
    throw new AppError("INVALID_INPUT", `${flag}: must be an absolute path to a directory (got ${path})`);
};

/** Records a provisioning lease under its lock; the agent name must not be held by any lease on this host. */
export const provisionLease = (deps: HerdrDeps, lease: Omit<LeaseRecord, "version" | "lease_id" | "created_at" | "updated_at">) =>
  reserve(deps, [lease.type], async () => {
    if (heldLeasesNamed(deps.dirs, lease.agent_name).length > 0) {
      throw new AppError("CONFLICT", `a held lease already names an agent ${lease.agent_name}`);
    }
    const now = deps.now();
    const record = { version: 1 as const, lease_id: deps.newId("lease"), created_at: now, updated_at: now, ...lease };
    return saveLease(deps.dirs, { ...record, herdr_server: herdrServerOf(deps.env) }, now);
  });

export const startReviewer = async (deps: HerdrDeps, input: LaunchInput, nativeArgs: readonly string[]): Promise<LeaseRecord> => {
  const args = nativeModelArgs(input.kind, nativeArgs);
  requireDirectory(input.cwd, "--cwd");
  const authority = await loadAuthority(deps);
  const lease = await provisionLease(deps, {
    type: "reviewer",
    controller_id: authority.controllerId,
    state: "provisioning",
    purpose: input.purpose,
    authority_ref: null,
    authority_sha256: null,
    agent_name: input.name,
    agent_kind: input.kind,
    // The tab is rooted at, and the agent later compared with, the directory itself, however it was spelt.
    cwd: canonicalDir(input.cwd),
    pane_id: null,
    terminal_id: null,
    workspace_id: null,
  });
  return startInDedicatedTab(deps, authority, lease, {
    kind: input.kind,
    workspaceId: authority.binding.workspace_id,
    args,
    startTimeoutMs: input.startTimeoutMs,
    busyWindowMs: input.busyWindowMs,
  });
};

export const closeReviewer = async (
  deps: HerdrDeps,
  input: { leaseId: string; expectedSeq: number; readLines: number },
): Promise<CloseResult> => {
  const authority = await loadAuthority(deps);
  ownedLease(deps.dirs, input.leaseId, authority.controllerId, "reviewer");
  const load = () => readLease(deps.dirs, input.leaseId) as LeaseRecord;
  return closeLeasedPane(deps, authority, input.leaseId, load, input, {
    closing: "closing",
    closed: "closed",
    failed: "close_failed",
  });
};
