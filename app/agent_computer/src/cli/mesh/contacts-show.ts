import * as z from "zod/mini";
import { agentIdSchema } from "../../domain/identity/names.ts";
import { defineCommand } from "../kernel/command.ts";
import { ownCredential, PRESENCE_FALLBACK, tokenFileSchema } from "../kernel/credential.ts";
import { contactsCommon, runContacts } from "./contacts-shared.ts";

const showSchema = z.object({ agentId: agentIdSchema, tokenFile: tokenFileSchema });

export default defineCommand({
  name: "agent-contacts-cli show",
  summary: "show your contact policy, allow list and block list",
  description: "Prints who may message you. Changes nothing but your presence renewal.",
  schema: showSchema,
  writes: `only your presence renewal.${PRESENCE_FALLBACK}`,
  examples: ["agent-contacts-cli show --agent-id builder-1 --json"],
  needs: { deps: "store", credential: ownCredential },
  run: runContacts<z.output<typeof showSchema>>(() => undefined),
  ...contactsCommon,
});
