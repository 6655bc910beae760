// agent-checkin-cli --herdr-pane: arms auto-wake for this agent on THIS host. The pane id goes only into the
// local wake directory of the state dir (never into the store); arming then makes sure a watcher runs here.
// The Herdr adapter and the watcher launcher (both bring execa) are imported only when a check-in arms:
// every other check-in starts without them.
import { readRegistration, removeRegistration, wakeDirFor } from "../local/wake-registrations.ts";
import type { Paths } from "../paths.ts";
import { armedWith, recordArming } from "./record-arming.ts";

export interface HerdrWake {
  /** would_arm: preview only, --confirm would arm. */
  state: "off" | "armed" | "would_arm" | "unsupported";
  reason: string | null;
  /** Set to "tmux" when the arming was asked for a tmux pane (--tmux-pane); absent for Herdr. */
  via?: "tmux";
  /** Which process wakes this agent (armed only): the worker, or a light watcher started for the purpose. */
  watcher?: { role: "worker" | "light"; pid: number };
}

/** What arming reads of the calling command (a CommandContext has it). */
export interface ArmContext {
  env: Readonly<Record<string, string | undefined>>;
  paths: Paths;
  now(): number;
}

const HERDR_CHECK_TIMEOUT_MS = 3_000;
// Only how the agent reaches its Herdr server; kept in the local registration so any watcher can reach it too.
const HERDR_ENV_KEYS = ["HERDR_SOCKET_PATH", "HERDR_SESSION", "XDG_CONFIG_HOME", "HOME"] as const;

const herdrEnvOf = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const picked: Record<string, string> = {};
  for (const key of HERDR_ENV_KEYS) if (env[key]) picked[key] = env[key] as string;
  return picked;
};

/** Arms (or previews arming) auto-wake for the session a check-in just created or renewed. */
export const herdrWakeFor = async (
  options: { agentId: string; herdrPane?: string | undefined; tmuxPane?: string | undefined },
  ctx: ArmContext,
  phase: "preview" | "confirm",
  sessionId: string | undefined,
): Promise<HerdrWake> => {
  const wakeDir = wakeDirFor(ctx.env, ctx.paths);
  if (options.herdrPane === undefined && options.tmuxPane !== undefined) {
    const { tmuxWakeFor } = await import("./arm-tmux.ts");
    return tmuxWakeFor({ agentId: options.agentId, tmuxPane: options.tmuxPane }, ctx, phase, sessionId);
  }
  if (options.herdrPane === undefined) {
    // A renewal without the flag keeps an arming made earlier in the same session (and revives its watcher).
    const earlier = readRegistration(wakeDir, options.agentId);
    if (phase === "confirm" && earlier && earlier.session_id === sessionId) {
      return armedWith(ctx, wakeDir, "armed earlier in this session on this host");
    }
    return { state: "off", reason: "no --herdr-pane or --tmux-pane given: poll agent-inbox-cli for new messages" };
  }
  const paneId = options.herdrPane;
  const [{ createHerdr }, { checkArmable, locateHerdr }] = await Promise.all([
    import("../adapters/herdr/client.ts"),
    import("./armable.ts"),
  ]);
  const herdrBin = locateHerdr(ctx.env);
  const check =
    herdrBin === undefined
      ? ({ ok: false, reason: "herdr is not on PATH (nor named by HERDR_BIN_PATH): poll agent-inbox-cli yourself" } as const)
      : await checkArmable({
          paneId,
          env: ctx.env,
          herdr: createHerdr({ bin: herdrBin, env: ctx.env, commandTimeoutMs: HERDR_CHECK_TIMEOUT_MS }),
        });
  if (!check.ok) {
    // Not armed means not armed: an earlier arming of this agent on this host ends too.
    if (phase === "confirm") removeRegistration(wakeDir, options.agentId);
    return { state: "unsupported", reason: check.reason };
  }
  if (phase === "preview" || !sessionId) {
    return { state: "would_arm", reason: `--confirm arms auto-wake for pane ${paneId} on this host` };
  }
  return recordArming(ctx, wakeDir, {
    agent_id: options.agentId,
    pane_id: paneId,
    session_id: sessionId,
    terminal_id: check.agent.terminalId,
    kind: check.agent.kind ?? null,
    herdr_env: herdrEnvOf(ctx.env),
    herdr_bin: herdrBin,
    armed_at: ctx.now(),
  });
};
