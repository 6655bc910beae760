// agent-checkin-cli --tmux-pane: arms auto-wake for an agent running in a tmux pane of THIS host. Arming records
// the tmux server's socket, the pane and the process in it (host-local, never in the store); it needs the pane to
// be the caller's own ($TMUX_PANE), tmux to answer for it, and the client's state hook to have reported there.
import { basename, resolve } from "node:path";
import { readAgentState, tmuxPaneKey, tmuxPlaceOf } from "../local/agent-state.ts";
import { removeRegistration, type WakeRegistration, wakeDirFor } from "../local/wake-registrations.ts";
import type { ArmContext, HerdrWake } from "./arm.ts";
import { recordArming } from "./record-arming.ts";

const POLL = "poll agent-inbox-cli yourself";

type Check = { ok: true; registration: Omit<WakeRegistration, "session_id" | "armed_at"> } | { ok: false; reason: string };

const checkTmuxArmable = async (agentId: string, paneId: string, ctx: ArmContext): Promise<Check> => {
  const place = tmuxPlaceOf(ctx.env);
  if (!place) return { ok: false, reason: `not inside tmux ($TMUX and $TMUX_PANE unset or not tmux's): ${POLL}` };
  if (place.pane !== paneId) {
    return { ok: false, reason: `--tmux-pane ${paneId} is not this pane ($TMUX_PANE is ${place.pane}): ${POLL}` };
  }
  const found = Bun.which("tmux", { PATH: ctx.env.PATH ?? "" });
  if (!found) return { ok: false, reason: `tmux is not on PATH: ${POLL}` };
  const { createTmux } = await import("../adapters/tmux.ts");
  const bin = resolve(found);
  let facts: Awaited<ReturnType<ReturnType<typeof createTmux>["paneFacts"]>>;
  try {
    facts = await createTmux({ bin, socket: place.socket, env: ctx.env }).paneFacts(paneId);
  } catch (error) {
    return {
      ok: false,
      reason: `tmux could not confirm pane ${paneId} (${(error as { kind?: string }).kind ?? "error"}): ${POLL}`,
    };
  }
  if (!facts || facts.dead) return { ok: false, reason: `the tmux server has no live pane ${paneId}: ${POLL}` };
  // Run as a shell's foreground job, the check-in itself is what tmux sees in the pane: recording it would end the
  // arming the moment the shell is back. The client's hook runs inside the client's process group instead.
  if (facts.currentCommand === basename(process.execPath) || facts.currentCommand.startsWith("agent-checkin")) {
    return {
      ok: false,
      reason: `the pane's foreground process is this check-in, not your client: arm from the client's SessionStart hook (agent-mesh Skill); ${POLL}`,
    };
  }
  if (!readAgentState(ctx.paths, place)) {
    return {
      ok: false,
      reason: `no client hook has reported this pane's state (install the agent-state hook, see the agent-mesh Skill): ${POLL}`,
    };
  }
  return {
    ok: true,
    registration: {
      agent_id: agentId,
      pane_id: tmuxPaneKey(place),
      terminal_id: `pid-${facts.panePid}`,
      kind: null,
      herdr_env: {},
      tmux: { bin, socket: place.socket, pane: paneId, pane_pid: facts.panePid, command: facts.currentCommand.slice(0, 256) },
    },
  };
};

/** Arms (or previews arming) auto-wake in the caller's tmux pane for the session a check-in just created or renewed. */
export const tmuxWakeFor = async (
  options: { agentId: string; tmuxPane: string },
  ctx: ArmContext,
  phase: "preview" | "confirm",
  sessionId: string | undefined,
): Promise<HerdrWake> => {
  const wakeDir = wakeDirFor(ctx.env, ctx.paths);
  const check = await checkTmuxArmable(options.agentId, options.tmuxPane, ctx);
  if (!check.ok) {
    if (phase === "confirm") removeRegistration(wakeDir, options.agentId);
    return { state: "unsupported", reason: check.reason, via: "tmux" };
  }
  if (phase === "preview" || !sessionId) {
    return { state: "would_arm", reason: `--confirm arms auto-wake for tmux pane ${options.tmuxPane} on this host`, via: "tmux" };
  }
  const armed = await recordArming(ctx, wakeDir, { ...check.registration, session_id: sessionId, armed_at: ctx.now() });
  return { ...armed, via: "tmux" };
};
