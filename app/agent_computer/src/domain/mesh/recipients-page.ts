import { AppError } from "../../errors.ts";
import type { Deps } from "../deps.ts";
import { holderLiveness } from "../identity/liveness.ts";
import { enterMesh, withPresence } from "./live-session.ts";
import type { SendResult } from "./send.ts";

export interface RecipientsPageInput {
  agentId: string;
  token: string | undefined;
  messageId: string;
  /** The last name of the previous page; null: from the first. */
  after: string | null;
  limit: number;
}

export interface RecipientsPage {
  id: string;
  from: string;
  /** Each recipient the message was stored for, in name order, with its outcome as it stands now. */
  recipients: SendResult["recipients"];
  /** How many recipients follow this page. */
  left: number;
  /** Why presence was not renewed, when the store could not take that write (withPresence). */
  warning?: string;
}

/**
 * One page of the recipients of a message the caller sent (a broadcast's may be thousands). Recipients that refused
 * the sender got nothing stored and are not among them; the send's own summary counts them.
 */
export const recipientsPage = async (deps: Deps, input: RecipientsPageInput): Promise<RecipientsPage> => {
  const { value, warning } = await withPresence(deps, async (tx, renew) => {
    await enterMesh(deps, tx, input.agentId, input.token, false, renew);
    return tx.mesh.deliveriesPage(input.agentId, input.messageId, input.after, input.limit);
  });
  if (value.following === 0 && input.after === null) {
    throw new AppError("MESSAGE_NOT_FOUND", `${input.agentId} sent no message ${input.messageId} that reached anyone`, {
      hint: `agent-sent-cli --agent-id ${input.agentId} lists your messages`,
    });
  }
  const recipients = value.entries.map((d) => {
    const alive = d.reached && holderLiveness({ agentId: d.agentId, hostId: d.hostId }, true, deps.local).alive;
    return {
      agent_id: d.agentId,
      outcome: d.reached ? (alive ? "live" : "process_exited") : "not_checked_in",
      seq: d.seq,
    } as const;
  });
  return {
    id: input.messageId,
    from: input.agentId,
    recipients,
    left: value.following - recipients.length,
    ...(warning ? { warning } : {}),
  };
};
