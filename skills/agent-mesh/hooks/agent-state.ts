// Client hook: what the agent in this tmux pane is doing, from the client's own events (UserPromptSubmit and tool use
// mean working, Stop means idle, a permission Notification means blocked), written to a 0600 file of this host's
// state dir that the wake watcher reads. Outside tmux it does nothing. It prints nothing: no model ever sees it.
import {
  type AgentState,
  stateForHookEvent,
  tmuxPlaceOf,
  writeAgentState,
} from "../../../app/agent_computer/src/local/agent-state.ts";
import { resolvePaths } from "../../../app/agent_computer/src/paths.ts";

const text = (value: unknown, max: number): string | undefined =>
  typeof value === "string" && value.length <= max ? value : undefined;

/** The state this hook input reports, or undefined when the event says nothing about it (or the input is not JSON). */
export const stateOfHookInput = (raw: string): { state: AgentState; event: string } | undefined => {
  let input: unknown;
  try {
    input = raw.trim() ? JSON.parse(raw) : {};
  } catch {
    return undefined;
  }
  if (typeof input !== "object" || input === null) return undefined;
  const fields = input as Record<string, unknown>;
  const event = text(fields.hook_event_name, 64);
  if (!event) return undefined;
  const state = stateForHookEvent(event, text(fields.notification_type, 64), text(fields.message, 4096));
  return state && { state, event };
};

const main = async (): Promise<void> => {
  const place = tmuxPlaceOf(process.env);
  if (!place) return;
  const seen = stateOfHookInput(await new Response(Bun.stdin.stream()).text());
  if (seen) writeAgentState(resolvePaths(process.env), place, seen.state, seen.event, Date.now());
};

if (import.meta.main) await main().catch(() => undefined);
