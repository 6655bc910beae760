// Adopted leases: a pre-existing agent (started outside these tools) taken over for cleanup only. Adoption
// checks the exact agent (pane, name, kind, cwd, settled cursor) and never adopts the controller's own pane or a
// protected one. It grants no Git ownership and no request authority: the only thing it allows is a close.
import { AppError } from "../../errors.ts";
import { isReadyForRequest } from "./agent-identity.ts";
import { type CloseResult, closeLeasedPane } from "./close-leased.ts";
import { loadAuthority } from "./controller-authority.ts";
import { canonicalDir, sameDirectory } from "./directories.ts";
import { type HerdrDeps, reserve } from "./herdr-deps.ts";
import { viaHerdr } from "./herdr-failure.ts";
import { herdrServerOf } from "./herdr-server.ts";
import { isHeld, type LeaseRecord, listLeases, ownedLease, readLease, saveLease } from "./leases.ts";

export interface AdoptInput {
  target: string;
  expectedPaneId: string;
  expectedName: string;
  expectedKind: string;
  expectedCwd: string;
  expectedSeq: number;
  authorityRef: string;
  authoritySha256: string;
  purpose: string;
  protectedPanes: readonly string[];
}

export const adoptAgent = async (deps: HerdrDeps, input: AdoptInput): Promise<LeaseRecord> => {
  const authority = await loadAuthority(deps);
  if (input.expectedPaneId === authority.binding.pane_id || input.protectedPanes.includes(input.expectedPaneId)) {
    throw new AppError(
      "CONFLICT",
      `pane ${input.expectedPaneId} is protected (the controller's own or listed with --protected-pane)`,
    );
  }
  return reserve(deps, ["adopted"], async () => {
    const agent = await viaHerdr(deps.herdr.getAgent(input.target));
    const exact =
      agent.paneId === input.expectedPaneId &&
      agent.name === input.expectedName &&
      agent.kind === input.expectedKind &&
      sameDirectory(agent.cwd, input.expectedCwd);
    if (!exact)
      throw new AppError("IDENTITY_CHANGED", `${input.target} is not the agent expected (pane, name, kind or cwd differ)`);
    if (!isReadyForRequest(agent.status))
      throw new AppError("AGENT_NOT_SETTLED", `${input.target} is ${agent.status}, not idle or done`);
    if (agent.stateChangeSeq !== input.expectedSeq) {
      throw new AppError(
        "CURSOR_MOVED",
        `${input.target} is at state_change_seq ${agent.stateChangeSeq}, not ${input.expectedSeq}`,
      );
    }
    const taken = listLeases(deps.dirs).find(
      (lease) => isHeld(lease.state) && (lease.pane_id === agent.paneId || lease.agent_name === input.expectedName),
    );
    if (taken) throw new AppError("CONFLICT", `${input.target} is already held by ${taken.type} lease ${taken.lease_id}`);
    await authority.verify();
    const now = deps.now();
    return saveLease(
      deps.dirs,
      {
        version: 1,
        lease_id: deps.newId("lease"),
        type: "adopted",
        controller_id: authority.controllerId,
        state: "active",
        purpose: input.purpose,
        authority_ref: input.authorityRef,
        authority_sha256: input.authoritySha256,
        agent_name: input.expectedName,
        agent_kind: input.expectedKind,
        cwd: canonicalDir(input.expectedCwd),
        pane_id: agent.paneId,
        terminal_id: agent.terminalId,
        workspace_id: agent.workspaceId,
        herdr_server: herdrServerOf(deps.env),
        created_at: now,
        updated_at: now,
      },
      now,
    );
  });
};

export const closeAdopted = async (
  deps: HerdrDeps,
  input: { leaseId: string; expectedSeq: number; readLines: number; checkpointRef: string; checkpointSha256: string },
): Promise<CloseResult> => {
  const authority = await loadAuthority(deps);
  ownedLease(deps.dirs, input.leaseId, authority.controllerId, "adopted");
  const load = () => readLease(deps.dirs, input.leaseId) as LeaseRecord;
  return closeLeasedPane(
    deps,
    authority,
    input.leaseId,
    load,
    input,
    { closing: "closing", closed: "closed", failed: "close_failed" },
    {
      prepare: async (lease) => {
        saveLease(
          deps.dirs,
          { ...lease, checkpoint_ref: input.checkpointRef, checkpoint_sha256: input.checkpointSha256 },
          deps.now(),
        );
      },
    },
  );
};
