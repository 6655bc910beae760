// Whether auto-wake can work for a pane, checked with Herdr itself: every "no" carries the reason the agent is
// shown, so it knows to poll agent-inbox-cli instead of waiting for a wake that will never come.
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { type Herdr, type HerdrAgent, isHerdrError } from "../adapters/herdr/client.ts";

const isExecutableFile = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * The absolute path of the herdr this agent would run: found on its PATH, else HERDR_BIN_PATH (set only for
 * Herdr's custom commands and plugins). Recorded at arming, because the process that later delivers the wake
 * (the worker) may have no herdr on its own PATH; undefined when there is none to record.
 */
export const locateHerdr = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const onPath = Bun.which("herdr", { PATH: env.PATH ?? "" });
  if (onPath) return resolve(onPath);
  const named = env.HERDR_BIN_PATH;
  return named && isAbsolute(named) && isExecutableFile(named) ? named : undefined;
};

export type ArmCheck = { ok: true; agent: HerdrAgent } | { ok: false; reason: string };

const POLL = "poll agent-inbox-cli yourself";

const herdrFailure = (kind: string, paneId: string): string => {
  switch (kind) {
    case "not_installed":
      return `herdr is not on PATH: ${POLL}`;
    case "server_unavailable":
      return `no Herdr server answers for this pane (HERDR_SOCKET_PATH / HERDR_SESSION): ${POLL}`;
    case "version_mismatch":
      return `the herdr CLI and the running Herdr server speak different protocols (restart Herdr): ${POLL}`;
    case "not_found":
      return `Herdr knows no agent in pane ${paneId} (unknown pane, or a plain shell): ${POLL}`;
    default:
      return `Herdr could not confirm pane ${paneId} (${kind}): ${POLL}`;
  }
};

/**
 * Auto-wake needs: HERDR_ENV=1 (we run inside Herdr), the pane being our own (HERDR_PANE_ID, when Herdr set it),
 * `herdr` on PATH, and Herdr reporting an agent in exactly that pane.
 */
export const checkArmable = async (input: {
  paneId: string;
  env: Readonly<Record<string, string | undefined>>;
  herdr: Herdr;
}): Promise<ArmCheck> => {
  const { paneId, env } = input;
  if (env.HERDR_ENV !== "1") return { ok: false, reason: `HERDR_ENV is not 1 (not inside a Herdr pane): ${POLL}` };
  if (paneId === "") return { ok: false, reason: `--herdr-pane is empty (HERDR_PANE_ID is unset?): ${POLL}` };
  const ownPane = env.HERDR_PANE_ID;
  if (ownPane && ownPane !== paneId) {
    return {
      ok: false,
      reason: `--herdr-pane ${paneId} is not this pane (HERDR_PANE_ID is ${ownPane}); pass only your own pane id, or ${POLL}`,
    };
  }
  let agent: HerdrAgent;
  try {
    agent = await input.herdr.getAgent(paneId);
  } catch (error) {
    return { ok: false, reason: herdrFailure(isHerdrError(error) ? error.kind : "unknown", paneId) };
  }
  // `herdr agent get` also accepts an agent name; auto-wake must be bound to the pane itself.
  if (agent.paneId !== paneId) {
    return { ok: false, reason: `--herdr-pane must be a pane id such as ${agent.paneId}, not an agent name; or ${POLL}` };
  }
  return { ok: true, agent };
};
