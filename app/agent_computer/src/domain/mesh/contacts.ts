import { AppError } from "../../errors.ts";
import type { ContactPolicy, ContactSettings, StoreTx } from "../../store/port.ts";
import { type Deps, iso } from "../deps.ts";
import { nameKey } from "../identity/names.ts";
import { enterMesh, withPresence } from "./live-session.ts";

export interface ContactsResult {
  agent_id: string;
  policy: ContactPolicy;
  /** The first CONTACTS_SHOWN names of each list, by name; allow_count and block_count count them all. */
  allow: string[];
  block: string[];
  allow_count: number;
  block_count: number;
  updated_at: string | null;
  /** What a sender that is on neither list meets. */
  note: string;
  /** Why presence was not renewed, when a show could not write it (withPresence). */
  warning?: string;
}

/** A change to the caller's own contact settings; without one, the settings are only shown. */
export type ContactChange =
  | { kind: "policy"; policy: ContactPolicy }
  | { kind: "allow" | "block" | "forget"; contacts: string[] };

export interface ContactsInput {
  agentId: string;
  token: string | undefined;
  change?: ContactChange;
}

const NOTES: Record<ContactPolicy, string> = {
  open: "every agent may message you except those you block",
  "contacts-only": "only the agents you allow may message you, and never one you block",
  closed: "no agent may message you; notices from agent-computer itself (bounces, job events) still arrive",
};

/** A name as registered: one that only looks like a registered name (case, trailing . _ -) is taken as that one. */
const registeredName = async (tx: StoreTx, name: string): Promise<string> =>
  (await tx.identity.getAgent(name)) ? name : ((await tx.identity.nameWithKey(nameKey(name))) ?? name);

const apply = async (tx: StoreTx, agentId: string, change: ContactChange, now: number): Promise<void> => {
  if (change.kind === "policy") return tx.mesh.setContactPolicy(agentId, change.policy, now);
  const contacts: string[] = [];
  for (const other of change.contacts) contacts.push(await registeredName(tx, other));
  if (contacts.includes(agentId)) {
    throw new AppError("INVALID_INPUT", `--contact: ${agentId} is you; your own mail is not subject to your policy`);
  }
  for (const other of new Set(contacts))
    await tx.mesh.setContact(agentId, other, change.kind === "forget" ? null : change.kind, now);
};

/** How many names of each list an answer shows: a list may hold thousands. */
export const CONTACTS_SHOWN = 100;

const view = (agentId: string, s: ContactSettings): ContactsResult => ({
  agent_id: agentId,
  policy: s.policy,
  allow: s.allow.slice(0, CONTACTS_SHOWN),
  block: s.block.slice(0, CONTACTS_SHOWN),
  allow_count: s.allow.length,
  block_count: s.block.length,
  updated_at: s.updatedAt === null ? null : iso(s.updatedAt),
  note: NOTES[s.policy],
});

/**
 * Shows, and with a change first updates, the caller's own contact policy and lists: authenticated as that agent,
 * in one transaction, so a send that starts after this commits already meets the new settings.
 */
export const manageContacts = async (deps: Deps, input: ContactsInput): Promise<ContactsResult> => {
  const { change } = input;
  if (change) {
    return deps.store.write(async (tx) => {
      await enterMesh(deps, tx, input.agentId, input.token, false);
      await apply(tx, input.agentId, change, deps.now());
      return view(input.agentId, await tx.mesh.contactSettings(input.agentId));
    });
  }
  // Showing writes only presence: a store that cannot take it still shows the settings.
  const { value, warning } = await withPresence(deps, async (tx, renew) => {
    await enterMesh(deps, tx, input.agentId, input.token, false, renew);
    return view(input.agentId, await tx.mesh.contactSettings(input.agentId));
  });
  return warning ? { ...value, warning } : value;
};
