// The one text auto-wake ever types into a pane, and its single-use token. The text is fixed: only the local
// agent's own id (checked against the agent-id charset), a count and the token fill it, so no message body,
// sender name or other remote value can reach Herdr's argv.
import { AGENT_ID_PATTERN } from "../../agent-id.ts";

export const WAKE_PROMPT_PREFIX = "[auto-wake #2540]";

export const WAKE_TOKEN_PATTERN = /^[0-9a-f]{16}$/;

/** Exactly the shape of every prompt; buildWakePrompt refuses to return anything else. */
export const WAKE_PROMPT_PATTERN =
  /^\[auto-wake #2540\] [1-9][0-9]{0,5} new Agent Mesh message\(s\); run: agent-inbox-cli --agent-id [A-Za-z0-9_.-]{1,64} --wake-token [0-9a-f]{16}$/;

/** 64 random bits as 16 lowercase hex characters: the form agent-inbox-cli --wake-token accepts. */
export const mintWakeToken = (): string => Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString("hex");

/** Only this hash is stored; the token travels once, inside the prompt typed into the agent's own pane. */
export const hashWakeToken = (token: string): string => new Bun.CryptoHasher("sha256").update(token, "utf8").digest("hex");

export const buildWakePrompt = (agentId: string, count: number, token: string): string => {
  if (!AGENT_ID_PATTERN.test(agentId)) throw new Error("wake prompt: agent id outside the agent-id charset");
  if (!WAKE_TOKEN_PATTERN.test(token)) throw new Error("wake prompt: malformed wake token");
  const shown = Math.min(Math.max(1, Math.trunc(count)), 999_999);
  const text = `${WAKE_PROMPT_PREFIX} ${shown} new Agent Mesh message(s); run: agent-inbox-cli --agent-id ${agentId} --wake-token ${token}`;
  if (!WAKE_PROMPT_PATTERN.test(text)) throw new Error("wake prompt: text does not have the fixed shape");
  return text;
};
