import type { StoreTx } from "../../store/port.ts";

/**
 * Who may reach whom, the one rule of every path that puts an agent's text or act into another agent's inbox or
 * fires its webhooks: sends, replies and broadcasts, channel posts, task routing and assignment (checked against
 * the poster, whose title the notice quotes), and the notices of a task's steps (checked against the agent that took
 * the step). The recipient decides: a name on its block list is refused under every policy, `closed` refuses every
 * agent, `contacts-only` lets through its allow list only, `open` everyone else. A refused recipient gets nothing:
 * no inbox row, no webhook event. The mesh's own notices about the recipient's own affairs (bounces of mail it
 * sent, its jobs' runs, its webhooks' health) carry no other agent's text and are not subject to it.
 *
 * Returns the names, of `recipients`, that refuse `sender`. Checked inside the transaction that delivers, so a
 * policy change commits either before the delivery or after it. A broadcast applies the same rule inside its one
 * set-based delivery (MeshRepo.storeBroadcast): the store writes the rule once (REFUSES in store/sql/mesh-contacts.ts)
 * and both queries use that text.
 */
export const refusingRecipients = (tx: StoreTx, sender: string, recipients: readonly string[]): Promise<string[]> =>
  recipients.length === 0 ? Promise.resolve([]) : tx.mesh.refusingRecipients(sender, recipients);

/** The rule for one recipient: whether `recipient` accepts `sender`'s text and acts. */
export const mayReach = async (tx: StoreTx, sender: string, recipient: string): Promise<boolean> =>
  (await refusingRecipients(tx, sender, [recipient])).length === 0;
