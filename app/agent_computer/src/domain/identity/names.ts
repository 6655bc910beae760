// Names every family shares. The schemas are zod/mini (the mesh commands' start-up path, where classic zod
// costs milliseconds); classic schemas embed them like any other (z.array(capabilitySchema), z.object({ … })).
import * as z from "zod/mini";
import { AGENT_ID_PATTERN, AGENT_ID_RULE } from "../../agent-id.ts";

/** The sender name of notices the mesh itself writes (bounces); no agent may register it. */
export const SYSTEM_SENDER = "agent-computer";

export const agentIdSchema = z
  .string()
  .check(z.regex(AGENT_ID_PATTERN, `must be ${AGENT_ID_RULE}`), z.describe(`agent name, ${AGENT_ID_RULE}`));

/**
 * A name as names compare: lower case, trailing . _ - dropped. Two names with one key look alike (Alice, alice,
 * alice.), so only one of them may be registered, and a block list entry holds for every name of its key.
 */
export const nameKey = (name: string): string => name.toLowerCase().replace(/[._-]+$/, "");

/** An agent name documented for one command's flag: the same rule, its own description. */
export const agentId = (description: string) => agentIdSchema.check(z.describe(description));

export const CAPABILITY_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

export const capabilitySchema = z.string().check(z.regex(CAPABILITY_PATTERN, "each capability: 1-64 of A-Z a-z 0-9 _ . : -"));
