// What agent-contacts-cli's subcommands share: the contract text, the list flag, the call and how settings are shown.
import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { type ContactChange, type ContactsResult, manageContacts } from "../../domain/mesh/contacts.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, tokenFileSchema } from "../kernel/credential.ts";

const ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"];
const OUTPUT =
  '{"agent_id","policy":"open|contacts-only|closed","allow":[first 100],"block":[first 100],"allow_count","block_count",' +
  '"updated_at","note","warning"?(show only)}';

const contactSchema = z
  .array(agentIdSchema)
  .check(z.minLength(1), z.maxLength(100), z.describe("agent names (repeatable or comma-separated)"));

/** The call every subcommand makes: the settings, after the change this subcommand makes (if any). */
export const runContacts =
  <O extends { agentId: string; tokenFile?: string | undefined }>(change: (options: O) => ContactChange | undefined) =>
  async (options: O, deps: DepsOf<"store">): Promise<ContactsResult> => {
    const token = deps.credential?.token;
    const made = change(options);
    return manageContacts(deps, { agentId: options.agentId, token, ...(made ? { change: made } : {}) });
  };

/** A list's first names, and how many more it holds than the answer names. */
const names = (shown: string[], count: number): string =>
  shown.length === 0 ? "(none)" : `${shown.join(", ")}${count > shown.length ? ` and ${count - shown.length} more` : ""}`;

const render = (r: ContactsResult): string =>
  [
    `${r.agent_id}: ${r.policy} (${r.note})`,
    `  allow (${r.allow_count}): ${names(r.allow, r.allow_count)}`,
    `  block (${r.block_count}): ${names(r.block, r.block_count)}`,
  ].join("\n");

/** The contract sections every subcommand has in common. */
export const contactsCommon = { output: OUTPUT, errors: AUTHENTICATED_ERRORS, env: ENV, render };

const listSchema = z.object({ agentId: agentIdSchema, contact: contactSchema, tokenFile: tokenFileSchema });
type ListOptions = z.output<typeof listSchema>;

/** allow, block and forget: the same flags, one kind of list change each. */
export const listChangeCommand = (kind: "allow" | "block" | "forget", summary: string, description: string, example: string) =>
  defineCommand({
    name: `agent-contacts-cli ${kind}`,
    summary,
    description,
    schema: listSchema,
    flags: { contact: { placeholder: "<id>" } },
    writes: `your ${kind === "forget" ? "allow and block lists" : `${kind} list`} (and your presence renewal).`,
    examples: [example],
    needs: { deps: "store", credential: ownCredential },
    run: runContacts<ListOptions>((o) => ({ kind, contacts: o.contact })),
    ...contactsCommon,
  });
