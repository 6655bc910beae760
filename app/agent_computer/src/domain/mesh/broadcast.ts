import { AppError } from "../../errors.ts";
import type { BroadcastAudience, NewMessage, StoreTx } from "../../store/port.ts";
import type { Deps } from "../deps.ts";
import { holderLiveness } from "../identity/liveness.ts";
import { takeRateSlots } from "../identity/rate-limit.ts";
import { announceDelivery } from "./deliver.ts";
import type { MetCaller } from "./live-session.ts";
import type { RecipientOutcome } from "./send.ts";

/** What a broadcast selects: live agents other than the sender, narrowed by every filter given. */
export interface BroadcastFilters {
  role?: string | undefined;
  repo?: string | undefined;
  capabilities?: readonly string[] | undefined;
}

export interface BroadcastRecipient {
  agent_id: string;
  outcome: RecipientOutcome;
  seq: number | null;
}

const filterText = (f: BroadcastFilters): string => {
  const given = [
    f.role === undefined ? "" : `--role ${f.role}`,
    f.repo === undefined ? "" : `--repo ${f.repo}`,
    f.capabilities?.length ? `--capabilities ${f.capabilities.join(",")}` : "",
  ].filter(Boolean);
  return given.length === 0 ? "--broadcast" : `--broadcast ${given.join(" ")}`;
};

/** The selection's size against the bound: a broadcast that selects too many is refused whole, never cut short. */
const checkAudienceSize = (deps: Deps, filters: BroadcastFilters, selected: number): void => {
  if (selected === 0) {
    throw new AppError("NOT_FOUND", "no live agent matches the broadcast filters; nothing was sent", {
      hint: "agents-list-cli shows who is live",
    });
  }
  const max = deps.limits?.broadcastMaxRecipients();
  if (max !== undefined && selected > max) {
    throw new AppError(
      "INVALID_INPUT",
      `${filterText(filters)} selects ${selected} live agents, more than one broadcast may reach (at most ${max}, ` +
        "AGENT_COMPUTER_BROADCAST_MAX_RECIPIENTS); nothing was sent. Narrow it with --role, --repo or --capabilities " +
        "(agents-list-cli shows who they select), or send in parts",
      { details: { selected, max } },
    );
  }
};

/**
 * A broadcast's selection and delivery, inside the send's transaction: the sender's broadcast limit, the size of the
 * selection against the bound, then one set-based delivery to every selected agent the reach rule lets through, and
 * the `message` webhook events of those that have endpoints. Answers every selected agent, in name order.
 */
export const deliverBroadcast = async (
  deps: Deps,
  tx: StoreTx,
  message: NewMessage,
  filters: BroadcastFilters,
  caller: MetCaller,
  rateKeys: { name: string; host: string },
): Promise<BroadcastRecipient[]> => {
  await takeRateSlots(tx, deps.limits, "broadcast", rateKeys, message.createdAt, ["name"]);
  const audience: BroadcastAudience = { sender: message.sender, ...filters };
  checkAudienceSize(deps, filters, await tx.mesh.countAudience(audience, message.createdAt));
  const presence = { agentId: caller.agentId, touch: caller.touch, extend: caller.extend };
  const stored = await tx.mesh.storeBroadcast({ message, audience, presence, now: message.createdAt });
  // A session that began between the count and the delivery is still held to the bound.
  checkAudienceSize(deps, filters, stored.length);
  const recipients: BroadcastRecipient[] = [];
  for (const d of stored) {
    if (d.seq === null) {
      recipients.push({ agent_id: d.agentId, outcome: "refused_by_policy", seq: null });
      continue;
    }
    const holder = { agentId: d.agentId, hostId: d.hostId };
    if (d.subscribers.length > 0) {
      const slot = { seq: d.seq, sessionId: d.sessionId, holder };
      await announceDelivery(tx, message, d.agentId, message.createdAt, slot, Promise.resolve(d.subscribers));
    }
    const alive = holderLiveness(holder, true, deps.local).alive;
    recipients.push({ agent_id: d.agentId, outcome: alive ? "live" : "process_exited", seq: d.seq });
  }
  return recipients;
};
