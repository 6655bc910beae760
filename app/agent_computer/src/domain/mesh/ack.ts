import { AppError } from "../../errors.ts";
import type { Deps } from "../deps.ts";
import { enterMesh } from "./live-session.ts";

export type AckInput =
  | { agentId: string; token: string | undefined; messageIds: string[] }
  | { agentId: string; token: string | undefined; upToSeq: number };

export interface AckResult {
  agent_id: string;
  acked: string[];
  already_closed: string[];
}

/** Marks messages read. Idempotent; an id that is not this agent's rejects the whole call. */
export const ackMessages = (deps: Deps, input: AckInput): Promise<AckResult> =>
  deps.store.write(async (tx) => {
    const session = await enterMesh(deps, tx, input.agentId, input.token, true);
    if ("upToSeq" in input) {
      return {
        agent_id: input.agentId,
        acked: await tx.mesh.ackUpToSeq(session.id, input.upToSeq, deps.now()),
        already_closed: [],
      };
    }
    const ids = [...new Set(input.messageIds)];
    const known = new Set((await tx.mesh.deliveriesOf(input.agentId, ids)).map((d) => d.messageId));
    const foreign = ids.filter((id) => !known.has(id));
    if (foreign.length > 0) {
      throw new AppError(
        "MESSAGE_NOT_FOUND",
        `not messages of ${input.agentId}: ${foreign.join(", ")}; nothing was acknowledged`,
      );
    }
    const acked = await tx.mesh.ack(input.agentId, ids, deps.now());
    return { agent_id: input.agentId, acked, already_closed: ids.filter((id) => !acked.includes(id)) };
  });
