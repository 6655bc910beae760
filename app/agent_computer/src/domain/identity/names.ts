import { z } from "zod";

export const AGENT_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** The sender name of notices the mesh itself writes (bounces); no agent may register it. */
export const SYSTEM_SENDER = "agent-computer";

export const agentIdSchema = z
  .string()
  .regex(AGENT_ID_PATTERN, "must be 1-64 characters of A-Z a-z 0-9 _ . -")
  .describe("agent name, 1-64 characters of A-Z a-z 0-9 _ . -");

export const CAPABILITY_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

export const capabilitySchema = z.string().regex(CAPABILITY_PATTERN, "each capability: 1-64 of A-Z a-z 0-9 _ . : -");
