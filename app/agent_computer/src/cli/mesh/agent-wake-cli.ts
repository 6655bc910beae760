import * as z from "zod/mini";
import { STORE_ERRORS } from "../../errors.ts";
import { liveHolder, type WatcherHolder } from "../../local/wake-lock.ts";
import { listRegistrations, wakeDirFor } from "../../local/wake-registrations.ts";
import { runWakeService } from "../../wake/wake-service.ts";
import { createLogger } from "../../worker/log.ts";
import { type DepsOf, defineCommand } from "../kernel/command.ts";

export const watcherOptionsSchema = z.object({
  run: z
    ._default(z.boolean(), false)
    .check(
      z.describe(
        "run the light watcher in the foreground (what agent-checkin-cli starts detached); without it: print the status",
      ),
    ),
});

export type WatcherOptions = z.output<typeof watcherOptionsSchema>;

export interface WatcherOutput {
  outcome: "status" | "already_running" | "stopped" | "idle";
  wake_dir: string;
  watcher: WatcherHolder | null;
  armed: { agent_id: string; session_id: string; armed_at: string }[];
}

const statusOf = (wakeDir: string, outcome: WatcherOutput["outcome"], watcher: WatcherHolder | null): WatcherOutput => ({
  outcome,
  wake_dir: wakeDir,
  watcher,
  armed: listRegistrations(wakeDir).map((r) => ({
    agent_id: r.agent_id,
    session_id: r.session_id,
    armed_at: new Date(r.armed_at).toISOString(),
  })),
});

/** Without --run: who watches and who is armed. With --run: the light wake service in this process until a signal. */
const runWatcher = async (options: WatcherOptions, { ctx, ...deps }: DepsOf<"store">): Promise<WatcherOutput> => {
  const wakeDir = wakeDirFor(ctx.env, ctx.paths);
  if (!options.run) return statusOf(wakeDir, "status", liveHolder(wakeDir) ?? null);
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  try {
    const result = await runWakeService(
      { ...deps, env: ctx.env, paths: ctx.paths, log: createLogger(undefined, "wake").log },
      { role: "light", signal: abort.signal },
    );
    if (result.outcome === "already_running") return statusOf(wakeDir, "already_running", result.holder ?? null);
    return statusOf(wakeDir, result.outcome, null);
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
};

const render = (r: WatcherOutput): string => {
  const who = r.watcher ? `${r.watcher.role} watcher pid ${r.watcher.pid}` : "no watcher running";
  const lines = [`${r.outcome}: ${who} (${r.wake_dir})`];
  for (const a of r.armed) lines.push(`  armed: ${a.agent_id} (session ${a.session_id}, since ${a.armed_at})`);
  return lines.join("\n");
};

export default defineCommand({
  name: "agent-wake-cli",
  summary: "show (or run) this host's auto-wake watcher: which agents are armed and who wakes them",
  description:
    "Wakes agents that armed auto-wake on this host (agent-checkin-cli --herdr-pane, see agent-checkin-cli --help): " +
    "when Agent Mesh mail arrives for one, it types one fixed prompt into that agent's own Herdr pane with " +
    "`herdr agent prompt <pane> <text>`, where the text is exactly\n" +
    "  [auto-wake #2540] N new Agent Mesh message(s); run: agent-inbox-cli --agent-id <id> --wake-token <16 hex>\n" +
    "and <id> is the local agent's own id: no message body, sender or other remote value ever reaches Herdr.\n" +
    "Rules: mail arriving within a short window becomes one wake; at most one outstanding wake per agent (none until " +
    "its token is used, its messages are acknowledged or it expires); never while the agent is blocked (a human " +
    "dialog); while it is working the wake waits for idle/done, up to a bound; a hard cap of wakes per agent per hour. " +
    "In tmux (agent-checkin-cli --tmux-pane) it types the same text with tmux send-keys, only once the agent-state hooks " +
    "said idle, the pane was quiet for 5 s (AGENT_COMPUTER_WAKE_TMUX_QUIET_MS) and it is not in copy mode. " +
    "Only mail from another party (kind message or event) wakes; bounces and an agent's own mail never do, and " +
    "nothing on the wake path sends mail, so a wake loop cannot form.\n" +
    "One watcher runs per host and store (a lock file in <state dir>/wake/<store>/). agent-computer-worker runs the " +
    "same watcher and takes over from a light one; a light watcher exits by itself once no agent has been armed for " +
    "AGENT_COMPUTER_WAKE_IDLE_EXIT_MS. Without --run this only reports: whether a watcher runs for this store and which " +
    "agents are armed. You normally never need --run: agent-checkin-cli --herdr-pane starts the watcher itself.",
  schema: watcherOptionsSchema,
  writes:
    "without --run: nothing. With --run: wake tokens in the store (only their SHA-256, bound to agent, session and messages); in <state dir>/wake/<store>/ " +
    "the lock file and watcher.log; it removes registrations whose session ended or whose pane lost its agent.",
  output:
    '{"outcome":"status|already_running|stopped|idle","wake_dir","watcher":{"pid","role","host","started_at"}|null,"armed":[{"agent_id","session_id","armed_at"}]}',
  errors: ["INVALID_INPUT", ...STORE_ERRORS, "INTERNAL"],
  env: [
    "AGENT_COMPUTER_HOME",
    "AGENT_COMPUTER_DATABASE_URL",
    "AGENT_COMPUTER_WAKE_POLL_MS",
    "AGENT_COMPUTER_WAKE_QUIET_POLL_MS",
    "AGENT_COMPUTER_WAKE_COALESCE_MS",
    "AGENT_COMPUTER_WAKE_TOKEN_TTL_MS",
    "AGENT_COMPUTER_WAKE_WORKING_MAX_MS",
    "AGENT_COMPUTER_WAKE_HOURLY_CAP",
    "AGENT_COMPUTER_WAKE_IDLE_EXIT_MS",
  ],
  examples: [
    "agent-wake-cli",
    "agent-wake-cli --json | jq '.armed[].agent_id'",
    "agent-wake-cli --run   # foreground, until SIGTERM",
  ],
  needs: { deps: "store", clock: "live", usesStore: (options) => options.run },
  run: runWatcher,
  render,
});
