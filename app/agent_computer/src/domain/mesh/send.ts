import { AppError } from "../../errors.ts";
import type { MessageRef, NewMessage, SentMessage, StoredDelivery, StoreTx } from "../../store/port.ts";
import { type Deps, hostIdOf, iso } from "../deps.ts";
import { holderLiveness } from "../identity/liveness.ts";
import { takeDeliveryAndHostSlots, takeRateSlots } from "../identity/rate-limit.ts";
import { DIRECTORY_HINT, didYouMeanHint, namesNear } from "../identity/unknown-agent.ts";
import { retryOnceOnUniqueRace } from "../unique-race.ts";
import { type BroadcastFilters, deliverBroadcast } from "./broadcast.ts";
import { announceDelivery, type Delivery } from "./deliver.ts";
import { type MetCaller, meetCaller, writePresence } from "./live-session.ts";
import { refusingRecipients } from "./reach.ts";
import { type OutcomeSummary, SUMMARY_NAMES, summarise } from "./send-summary.ts";
import { labelledThread, ownLabel } from "./thread-label.ts";

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** reply: the sender of the message named by SendInput.replyTo. */
export type RecipientSelector =
  | { kind: "to"; agentIds: string[] }
  | ({ kind: "broadcast" } & BroadcastFilters)
  | { kind: "reply" };

export interface SendInput {
  from: string;
  token: string | undefined;
  recipients: RecipientSelector;
  body: string;
  threadId?: string | undefined;
  /** The message this one answers: one the sender sent or received. The reply joins its thread. */
  replyTo?: string | undefined;
  idempotencyKey?: string | undefined;
}

/**
 * live: its session is live and (where its pid can be checked) its process runs: it will see this.
 * process_exited: its session is still open but its registered process on this host has exited: the message waits
 * in that session and is read only if the agent checks in again before the session expires (else a bounce).
 * not_checked_in: no live session: stored, never delivered. unknown_agent: no such agent, nothing stored for it.
 * refused_by_policy: the recipient's contact policy or block list refuses the sender: nothing stored for it.
 */
export type RecipientOutcome = "live" | "process_exited" | "not_checked_in" | "unknown_agent" | "refused_by_policy";

export interface SendResult {
  id: string;
  from: string;
  created_at: string;
  thread_id: string | null;
  reply_to: string | null;
  replayed: boolean;
  /** Every recipient, in the order named (a broadcast: name order). */
  recipients: { agent_id: string; outcome: RecipientOutcome; seq: number | null }[];
  /** Per outcome: how many, and the first few names. */
  summary: OutcomeSummary;
  /** Whether the sender itself holds a live session: replies reach it only then. */
  sender_session: "live" | "expired";
  /** When sender_session is expired: the command that starts a new session. */
  sender_checkin?: string;
}

/** The liveness rule of agents-list-cli and task routing, applied to one delivery. */
const outcomeOf = (deps: Deps, delivery: Pick<Delivery, "live" | "holder">): RecipientOutcome => {
  if (!delivery.live) return "not_checked_in";
  return holderLiveness(delivery.holder, true, deps.local).alive ? "live" : "process_exited";
};

const senderFields = (from: string, sessionLive: boolean): Pick<SendResult, "sender_session" | "sender_checkin"> =>
  sessionLive
    ? { sender_session: "live" }
    : { sender_session: "expired", sender_checkin: `agent-checkin-cli --agent-id ${from} --confirm` };

/** What a send asks for, hashed: a retry must ask for the same thing. Broadcasts hash their filters, not who matched. */
const requestHash = (input: SendInput): string => {
  const recipients =
    input.recipients.kind === "to"
      ? { to: [...new Set(input.recipients.agentIds)].sort() }
      : input.recipients.kind === "reply"
        ? { to_sender_of: input.replyTo ?? null }
        : {
            broadcast: {
              role: input.recipients.role ?? null,
              repo: input.recipients.repo ?? null,
              ...(input.recipients.capabilities?.length
                ? { capabilities: [...new Set(input.recipients.capabilities)].sort() }
                : {}),
            },
          };
  const request = JSON.stringify({
    body: input.body,
    thread: input.threadId ?? null,
    ...(input.replyTo ? { reply_to: input.replyTo } : {}),
    ...recipients,
  });
  return Bun.SHA256.hash(request, "hex") as string;
};

/** A reuse of the key is a retry only if it asks for what the original asked; anything else is refused. */
const checkSameRequest = (input: SendInput, key: string, hash: string, original: SentMessage): void => {
  const differs =
    original.body !== input.body
      ? "a different body"
      : original.idempotencyHash !== null && original.idempotencyHash !== hash
        ? "different recipients or thread"
        : undefined;
  if (!differs) return;
  throw new AppError(
    "IDEMPOTENCY_CONFLICT",
    `--idempotency-key ${key} was used by ${input.from} at ${iso(original.createdAt)} for message ${original.id} with ${differs}; nothing was sent`,
    {
      hint: "a retry must repeat the same body, recipients and thread; a new message needs a new key",
      details: { message_id: original.id },
    },
  );
};

/** The original's recipients as they stand now, read in one statement (a broadcast's may be thousands). */
const replayRecipients = async (
  deps: Deps,
  tx: StoreTx,
  sender: string,
  original: SentMessage,
): Promise<SendResult["recipients"]> => {
  const page = await tx.mesh.deliveriesPage(sender, original.id, null, original.deliveries.length);
  const byName = new Map(page.entries.map((d) => [d.agentId, d]));
  return original.deliveries.map((d) => {
    const now = byName.get(d.recipient);
    const holder = now ? { agentId: now.agentId, hostId: now.hostId } : undefined;
    const outcome = holder && d.sessionId ? outcomeOf(deps, { live: true, holder }) : "not_checked_in";
    return { agent_id: d.recipient, outcome, seq: d.seq };
  });
};

/** The message replied to, if the sender may see it, and the thread the reply joins. Nothing is written yet. */
const repliedTo = async (tx: StoreTx, input: SendInput): Promise<{ parent: MessageRef; threadId: string } | undefined> => {
  if (!input.replyTo) return undefined;
  const parent = await tx.mesh.messageSeenBy(input.replyTo, input.from);
  if (!parent) {
    throw new AppError(
      "MESSAGE_NOT_FOUND",
      `--reply-to: ${input.from} sent or received no message ${input.replyTo}; nothing was sent`,
      {
        hint: `agent-inbox-cli --agent-id ${input.from} and agent-sent-cli --agent-id ${input.from} show the ids you may reply to`,
      },
    );
  }
  const threadId = parent.threadId ?? parent.id;
  if (input.threadId !== undefined && input.threadId !== threadId && ownLabel(input.from, input.threadId) !== threadId) {
    throw new AppError(
      "INVALID_INPUT",
      `--thread ${input.threadId} differs from the thread of the message you reply to (${threadId}); leave --thread out`,
    );
  }
  if (input.recipients.kind === "reply" && parent.sender === input.from) {
    throw new AppError("INVALID_INPUT", `--reply-to: you sent ${parent.id} yourself; name the recipients with --to`);
  }
  return { parent, threadId };
};

/** Each named recipient once, in name order (one name, the common case, needs neither). */
const uniqueSorted = (names: string[]): string[] => (names.length === 1 ? names : [...new Set(names)].sort());

/** An earlier send with the same key, answered again (a retry); undefined when the key is new or released. */
const replayed = async (
  deps: Deps,
  tx: StoreTx,
  input: SendInput,
  caller: MetCaller,
  key: string,
  hash: string,
): Promise<SendResult | undefined> => {
  await tx.mesh.releaseIdempotencyKey(input.from, key, deps.now() - IDEMPOTENCY_WINDOW_MS);
  const original = await tx.mesh.findByIdempotencyKey(input.from, key);
  if (!original) return undefined;
  checkSameRequest(input, key, hash, original);
  await writePresence(deps, tx, caller);
  const recipients = await replayRecipients(deps, tx, input.from, original);
  return {
    id: original.id,
    from: input.from,
    created_at: iso(original.createdAt),
    thread_id: original.threadId,
    reply_to: original.replyTo,
    replayed: true,
    recipients,
    summary: summarise(recipients),
    ...senderFields(input.from, caller.sessionLive),
  };
};

/**
 * Stores the message for every recipient that accepts the sender and tells each one's webhooks; the sender's
 * presence writes go with it (the store takes every agents' row in the one lock order). Answers per name.
 */
const deliverToAccepting = async (
  deps: Deps,
  tx: StoreTx,
  message: NewMessage,
  names: string[],
  refusing: Set<string>,
  caller: MetCaller,
): Promise<SendResult["recipients"]> => {
  const accepting = names.filter((name) => !refusing.has(name));
  const presence = { agentId: caller.agentId, touch: caller.touch, extend: caller.extend };
  const stored = await tx.mesh.storeMessage({ message, recipients: accepting, presence, now: message.createdAt });
  const outcomes = new Map<string, SendResult["recipients"][number]>();
  await Promise.all(
    accepting.map(async (name, i) => {
      const { slot, subscribers } = stored[i] as StoredDelivery;
      if (!slot) return outcomes.set(name, { agent_id: name, outcome: "unknown_agent", seq: null });
      const delivery = await announceDelivery(tx, message, name, message.createdAt, slot, Promise.resolve(subscribers));
      return outcomes.set(name, { agent_id: name, outcome: outcomeOf(deps, delivery), seq: delivery.seq });
    }),
  );
  return names.map((name) => outcomes.get(name) ?? { agent_id: name, outcome: "refused_by_policy", seq: null });
};

/** The first few names of a list, and how many more: an error about a broadcast names thousands otherwise. */
const someOf = (names: readonly string[]): string =>
  names.length > SUMMARY_NAMES
    ? `${names.slice(0, SUMMARY_NAMES).join(", ")} and ${names.length - SUMMARY_NAMES} more`
    : names.join(", ");

/** Nobody took the message: the send fails whole, and the transaction takes the message row back with it. */
const refuseIfUndelivered = async (tx: StoreTx, input: SendInput, recipients: SendResult["recipients"]): Promise<void> => {
  const refused = recipients.filter((r) => r.outcome === "refused_by_policy").map((r) => r.agent_id);
  if (refused.length > 0 && recipients.every((r) => r.outcome === "unknown_agent" || r.outcome === "refused_by_policy")) {
    const who = refused.length === 1 ? `${refused[0]} accepts` : `${someOf(refused)} accept`;
    throw new AppError("REFUSED_BY_POLICY", `${who} no mail from ${input.from}; nothing was sent`, {
      hint: "a recipient chooses who may message it (agent-contacts-cli); ask it through someone it accepts, or a person",
      details: refused.length > SUMMARY_NAMES ? { summary: summarise(recipients) } : { recipients },
    });
  }
  if (recipients.every((r) => r.outcome === "unknown_agent")) {
    const names = recipients.map((r) => r.agent_id);
    // One mistyped recipient is the common case; for several, each would need its own suggestion.
    const near = names.length === 1 ? await namesNear(tx, names[0] as string) : [];
    throw new AppError("UNKNOWN_AGENT", `no registered agent named ${names.join(", ")}; nothing was sent`, {
      hint: near.length > 0 ? didYouMeanHint(near) : DIRECTORY_HINT,
      ...(near.length > 0 ? { details: { did_you_mean: near } } : {}),
    });
  }
};

/**
 * One send, its rules in order: who asks (token, expiry, presence owed), a retry of an earlier send (idempotency),
 * what it answers (reply and thread), the sender's rate limit, who it goes to, who of them accepts the sender
 * (the reach rule), the delivery, and the delivery and host limits. Everything that refuses rolls back whole.
 * The store is told it is a send: it then decides how the statements travel and how a batch locks.
 */
const sendOnce = (deps: Deps, input: SendInput): Promise<SendResult> => {
  const named = input.recipients.kind === "to" ? uniqueSorted(input.recipients.agentIds) : undefined;
  return deps.store.write(
    async (tx) => {
      const caller = await meetCaller(deps, tx, input.from, input.token);
      const key = input.idempotencyKey ?? null;
      const hash = key ? requestHash(input) : null;
      if (key && hash) {
        const again = await replayed(deps, tx, input, caller, key, hash);
        if (again) return again;
      }
      const reply = await repliedTo(tx, input);
      const threadId =
        reply?.threadId ?? (input.threadId === undefined ? null : await labelledThread(tx, input.from, input.threadId));
      // Only new messages count against the sender's and the host's limits. The host's counter, written by every
      // send from the host, is taken last, right before COMMIT.
      const rateKeys = { name: input.from, host: hostIdOf(deps) };
      await takeRateSlots(tx, deps.limits, "send", rateKeys, deps.now(), ["name"]);
      const message: NewMessage = {
        id: deps.newId("msg"),
        sender: input.from,
        kind: "message",
        body: input.body,
        threadId,
        replyTo: reply?.parent.id ?? null,
        idempotencyKey: key,
        idempotencyHash: hash,
        createdAt: deps.now(),
      };
      let recipients: SendResult["recipients"];
      if (input.recipients.kind === "broadcast") {
        const { role, repo, capabilities } = input.recipients;
        recipients = await deliverBroadcast(deps, tx, message, { role, repo, capabilities }, caller, rateKeys);
      } else {
        const names = named ?? [reply?.parent.sender as string];
        // Checked in the transaction that delivers: a policy change commits either before this send or after it.
        const refusing = new Set(await refusingRecipients(tx, input.from, names));
        recipients = await deliverToAccepting(deps, tx, message, names, refusing, caller);
      }
      await refuseIfUndelivered(tx, input, recipients);
      const reached = recipients.filter((r) => r.seq !== null).length;
      await takeDeliveryAndHostSlots(tx, deps.limits, rateKeys, reached, deps.now());
      return {
        id: message.id,
        from: input.from,
        created_at: iso(message.createdAt),
        thread_id: threadId,
        reply_to: message.replyTo ?? null,
        replayed: false,
        recipients,
        summary: summarise(recipients),
        ...senderFields(input.from, caller.sessionLive),
      };
    },
    { send: { sender: input.from, recipients: named } },
  );
};

/**
 * Stores one message for each recipient and tells the truth about each (RecipientOutcome), and whether the
 * sender's own session is live. A concurrent retry with the same idempotency key loses the unique index race
 * and re-reads the original; a reuse of the key for a different message is IDEMPOTENCY_CONFLICT.
 */
export const sendMessage = (deps: Deps, input: SendInput): Promise<SendResult> =>
  retryOnceOnUniqueRace(() => sendOnce(deps, input), Boolean(input.idempotencyKey));
