// Who may reach whom: each agent's contact policy and its allow and block lists, and the one query of the reach rule.
import type { ContactPolicy, MeshRepo } from "../port.ts";
import { type Db, num, placeholders, type Row, str } from "./db.ts";

/**
 * The reach rule in SQL, the one text every query of it uses (a send's refusingRecipients, a broadcast's
 * INSERT … SELECT): over REFUSAL_TABLES, a recipient's policy row `p` refuses the sender named by the placeholder
 * `sender`. A block holds for every name that looks like the one blocked (the name key of domain/identity/names.ts:
 * lower case, trailing . _ - dropped); an allow admits only the name itself. No policy row: open.
 */
export const REFUSAL_TABLES = (sender: string): string =>
  `contact_policies p LEFT JOIN contacts c ON c.owner = p.agent_name AND c.other = ${sender}`;
export const REFUSES = (sender: string): string =>
  `(p.policy = 'closed' OR (p.policy = 'contacts-only' AND c.kind IS NULL)
    OR EXISTS (SELECT 1 FROM contacts b WHERE b.owner = p.agent_name AND b.kind = 'block'
      AND rtrim(lower(b.other), '._-') = rtrim(lower(${sender}), '._-')))`;

type ContactOps = Pick<MeshRepo, "contactSettings" | "setContactPolicy" | "setContact" | "refusingRecipients">;

export const contactOps = (db: Db): ContactOps => ({
  contactSettings: async (agentId) => {
    const policy = await db.get<Row>("SELECT policy, updated_at FROM contact_policies WHERE agent_name = $1", [agentId]);
    const listed = await db.all<Row>("SELECT other, kind FROM contacts WHERE owner = $1 ORDER BY other", [agentId]);
    return {
      policy: (policy ? str(policy.policy) : "open") as ContactPolicy,
      allow: listed.filter((r) => r.kind === "allow").map((r) => str(r.other)),
      block: listed.filter((r) => r.kind === "block").map((r) => str(r.other)),
      updatedAt: policy ? num(policy.updated_at) : null,
    };
  },
  setContactPolicy: async (agentId, policy, now) => {
    await db.run(
      `INSERT INTO contact_policies (agent_name, policy, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (agent_name) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at`,
      [agentId, policy, now],
    );
  },
  setContact: async (owner, other, kind, now) => {
    if (kind === null) {
      await db.run("DELETE FROM contacts WHERE owner = $1 AND other = $2", [owner, other]);
      return;
    }
    // Lists hang off the policy row: an agent that names a contact before choosing a policy stays open.
    await db.run(
      "INSERT INTO contact_policies (agent_name, policy, updated_at) VALUES ($1, 'open', $2) ON CONFLICT (agent_name) DO NOTHING",
      [owner, now],
    );
    await db.run(
      `INSERT INTO contacts (owner, other, kind, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (owner, other) DO UPDATE SET kind = excluded.kind, created_at = excluded.created_at`,
      [owner, other, kind, now],
    );
  },
  refusingRecipients: async (sender, recipients) =>
    recipients.length === 0
      ? []
      : (
          await db.all<Row>(
            `SELECT p.agent_name FROM ${REFUSAL_TABLES("$1")}
             WHERE p.agent_name IN (${placeholders(recipients.length, 2)}) AND ${REFUSES("$1")}`,
            [sender, ...recipients],
          )
        ).map((r) => str(r.agent_name)),
});
