// Names every family shares, as schemas the commands embed (z.array(capabilitySchema), z.object({ … })).
import * as z from "zod/mini";
import { AGENT_ID_PATTERN, AGENT_ID_RULE } from "../../agent-id.ts";
import { looksLikeToken, TOKEN_REFUSAL } from "../../token-shape.ts";

/**
 * Refuses a token-shaped value where a secret is never meaningful (names, labels, query words, roles, status lines):
 * stored or shown there, it would leak to every reader. The message never repeats the value.
 */
export const notAToken = () => z.refine<string>((value) => !looksLikeToken(value), TOKEN_REFUSAL);

/** The sender name of notices the mesh itself writes (bounces); no agent may register it. */
export const SYSTEM_SENDER = "agent-computer";

export const agentIdSchema = z
  .string()
  .check(z.regex(AGENT_ID_PATTERN, `must be ${AGENT_ID_RULE}`), notAToken(), z.describe(`agent name, ${AGENT_ID_RULE}`));

/**
 * A name as names compare: lower case, trailing . _ - dropped. Two names with one key look alike (Alice, alice,
 * alice.), so only one of them may be registered, and a block list entry holds for every name of its key.
 */
export const nameKey = (name: string): string => name.toLowerCase().replace(/[._-]+$/, "");

/** An agent name documented for one command's flag: the same rule, its own description. */
export const agentId = (description: string) => agentIdSchema.check(z.describe(description));

export const CAPABILITY_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

export const capabilitySchema = z
  .string()
  .check(z.regex(CAPABILITY_PATTERN, "each capability: 1-64 of A-Z a-z 0-9 _ . : -"), notAToken());

/** A thread label (--thread): other agents read it, so a secret never belongs in it. */
export const threadLabelSchema = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1-128 of A-Z a-z 0-9 _ . : -"), notAToken());

/** A thread id as agent-thread-cli reads it: a label becomes <sender>:<label>, so up to 64 + 1 + 128 characters. */
export const threadIdSchema = z
  .string()
  .check(z.regex(/^[A-Za-z0-9_.:-]{1,193}$/, "must be 1-193 of A-Z a-z 0-9 _ . : -"), notAToken());
