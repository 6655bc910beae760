import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { type ContactChange, type ContactsResult, manageContacts } from "../../domain/mesh/contacts.ts";
import { type CommandDef, type DepsOf, defineCommand } from "../kernel/command.ts";
import { AUTHENTICATED_ERRORS, ownCredential, PRESENCE_FALLBACK, tokenFileSchema } from "../kernel/credential.ts";

const ENV = ["AGENT_COMPUTER_HOME", "AGENT_COMPUTER_DATABASE_URL", "RELAY_AGENT_TOKEN"];
const OUTPUT =
  '{"agent_id","policy":"open|contacts-only|closed","allow":[…],"block":[…],"updated_at","note","warning"?(show only)}';

const contactSchema = z
  .array(agentIdSchema)
  .check(z.minLength(1), z.maxLength(100), z.describe("agent names (repeatable or comma-separated)"));

const run =
  <O extends { agentId: string; tokenFile?: string | undefined }>(change: (options: O) => ContactChange | undefined) =>
  async (options: O, deps: DepsOf<"store">): Promise<ContactsResult> => {
    const token = deps.credential?.token;
    const made = change(options);
    return manageContacts(deps, { agentId: options.agentId, token, ...(made ? { change: made } : {}) });
  };

const render = (r: ContactsResult): string =>
  [
    `${r.agent_id}: ${r.policy} (${r.note})`,
    `  allow: ${r.allow.length > 0 ? r.allow.join(", ") : "(none)"}`,
    `  block: ${r.block.length > 0 ? r.block.join(", ") : "(none)"}`,
  ].join("\n");

const common = { output: OUTPUT, errors: AUTHENTICATED_ERRORS, env: ENV, render };

const showSchema = z.object({ agentId: agentIdSchema, tokenFile: tokenFileSchema });
export const showCommand: CommandDef = defineCommand({
  name: "agent-contacts-cli show",
  summary: "show your contact policy, allow list and block list",
  description: "Prints who may message you. Changes nothing but your presence renewal.",
  schema: showSchema,
  writes: `only your presence renewal.${PRESENCE_FALLBACK}`,
  examples: ["agent-contacts-cli show --agent-id builder-1 --json"],
  needs: { deps: "store", credential: ownCredential },
  run: run<z.output<typeof showSchema>>(() => undefined),
  ...common,
});

const policySchema = z.object({
  agentId: agentIdSchema,
  policy: z
    .enum(["open", "contacts-only", "closed"])
    .check(z.describe("open: every agent but those you block; contacts-only: only your allow list; closed: nobody")),
  tokenFile: tokenFileSchema,
});
export const policyCommand: CommandDef = defineCommand({
  name: "agent-contacts-cli policy",
  summary: "set who may message you: open, contacts-only or closed",
  description:
    "Sets your policy; your lists are kept. It applies to every send that starts after it: mail already delivered stays " +
    "in your inbox.",
  schema: policySchema,
  writes: "your contact policy (and your presence renewal).",
  examples: [
    "agent-contacts-cli policy --agent-id builder-1 --policy contacts-only",
    "agent-contacts-cli policy --agent-id builder-1 --policy open",
  ],
  needs: { deps: "store", credential: ownCredential },
  run: run<z.output<typeof policySchema>>((o) => ({ kind: "policy", policy: o.policy })),
  ...common,
});

const listSchema = z.object({ agentId: agentIdSchema, contact: contactSchema, tokenFile: tokenFileSchema });
type ListOptions = z.output<typeof listSchema>;

const listCommand = (kind: "allow" | "block" | "forget", summary: string, description: string, example: string) =>
  defineCommand({
    name: `agent-contacts-cli ${kind}`,
    summary,
    description,
    schema: listSchema,
    flags: { contact: { placeholder: "<id>" } },
    writes: `your ${kind === "forget" ? "allow and block lists" : `${kind} list`} (and your presence renewal).`,
    examples: [example],
    needs: { deps: "store", credential: ownCredential },
    run: run<ListOptions>((o) => ({ kind, contacts: o.contact })),
    ...common,
  });

export const allowCommand: CommandDef = listCommand(
  "allow",
  "put agents on your allow list (taking them off your block list)",
  "Under contacts-only, only these agents may message you. Under open the list changes nothing until you switch.",
  "agent-contacts-cli allow --agent-id builder-1 --contact reviewer-1 --contact release",
);
export const blockCommand: CommandDef = listCommand(
  "block",
  "put agents on your block list (taking them off your allow list)",
  "A blocked agent's sends to you are refused under every policy, and it is told refused_by_policy.",
  "agent-contacts-cli block --agent-id builder-1 --contact noisy-bot",
);
export const forgetCommand: CommandDef = listCommand(
  "forget",
  "take agents off both your lists",
  "The agents are then treated as any other sender under your policy.",
  "agent-contacts-cli forget --agent-id builder-1 --contact noisy-bot",
);
