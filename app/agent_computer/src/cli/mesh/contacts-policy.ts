import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { defineCommand } from "../kernel/command.ts";
import { ownCredential, tokenFileSchema } from "../kernel/credential.ts";
import { contactsCommon, runContacts } from "./contacts-shared.ts";

const policySchema = z.object({
  agentId: agentIdSchema,
  policy: z
    .enum(["open", "contacts-only", "closed"])
    .check(z.describe("open: every agent but those you block; contacts-only: only your allow list; closed: nobody")),
  tokenFile: tokenFileSchema,
});

export default defineCommand({
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
  run: runContacts<z.output<typeof policySchema>>((o) => ({ kind: "policy", policy: o.policy })),
  ...contactsCommon,
});
