// The last step of every arming, whatever the pane's kind (Herdr or tmux): record the registration on this host and
// make sure a watcher runs for it. One pane holds one armed agent, and an arming no watcher serves is not kept.
import {
  ensureWakeDir,
  listRegistrations,
  removeRegistration,
  storeLabel,
  type WakeRegistration,
  writeRegistration,
} from "../local/wake-registrations.ts";
import type { ArmContext, HerdrWake } from "./arm.ts";

/** Makes sure a watcher serves the registrations of wakeDir: armed (with its holder), or unsupported and why. */
export const armedWith = async (ctx: ArmContext, wakeDir: string, reason: string | null): Promise<HerdrWake> => {
  const { ensureWakeWatcher } = await import("./launch.ts");
  const start = await ensureWakeWatcher(wakeDir, ctx.env);
  if (!start.ok) return { state: "unsupported", reason: `${start.reason}: poll agent-inbox-cli yourself` };
  return { state: "armed", reason, watcher: { role: start.holder.role, pid: start.holder.pid } };
};

/** Records an arming checked by the caller; whoever armed the same pane before is no longer in it. */
export const recordArming = async (ctx: ArmContext, wakeDir: string, registration: WakeRegistration): Promise<HerdrWake> => {
  ensureWakeDir(wakeDir, storeLabel(ctx.env, ctx.paths));
  for (const other of listRegistrations(wakeDir)) {
    if (other.pane_id === registration.pane_id && other.agent_id !== registration.agent_id) {
      removeRegistration(wakeDir, other.agent_id);
    }
  }
  writeRegistration(wakeDir, registration);
  const armed = await armedWith(ctx, wakeDir, null);
  if (armed.state !== "armed") removeRegistration(wakeDir, registration.agent_id);
  return armed;
};
