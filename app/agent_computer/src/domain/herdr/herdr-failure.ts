// A failed herdr call as the stable error a caller of our CLIs sees. Herdr's own code travels in the message;
// its raw stderr never does (the adapter already dropped it).
import { type HerdrError, isHerdrError } from "../../adapters/herdr/client.ts";
import { AppError } from "../../errors.ts";

/** What to do about a herdr CLI and server of different protocols, from which side is older. */
const protocolFix = (message: string): string =>
  /newer than server/.test(message)
    ? "the Herdr server runs an older release than the herdr on PATH: restart it (herdr server restart, or quit and start herdr)"
    : /older than server/.test(message)
      ? "the herdr on PATH is older than the running server: update that binary (or put the server's herdr first on PATH)"
      : "run the same Herdr release for the CLI and the server (herdr status shows both)";

export const herdrFailure = (error: unknown): unknown => {
  if (!isHerdrError(error)) return error;
  const e = error as HerdrError;
  const detail = `${e.command}: ${e.herdrCode ?? e.kind}: ${e.message}`;
  switch (e.kind) {
    case "not_installed":
    case "server_unavailable":
      return new AppError("UNAVAILABLE", `Herdr is not usable here (${detail})`, {
        hint: "run inside Herdr with its server running (herdr status)",
      });
    case "version_mismatch":
      return new AppError("UNAVAILABLE", `the herdr CLI and the Herdr server speak different protocols (${detail})`, {
        hint: protocolFix(e.message),
      });
    case "interrupted":
    case "transient":
      return new AppError("UNAVAILABLE", `Herdr did not answer this call (${detail})`, {
        hint: "the Herdr server was restarting, handing off or busy; retry",
      });
    case "timeout":
      return new AppError("TIMEOUT", detail);
    case "not_found":
      return new AppError("NOT_FOUND", detail);
    case "blocked":
      return new AppError("HERDR_REFUSED", `${detail} (nothing was typed)`, {
        hint: "the agent waits on a question or approval: answer it on the agent's screen in Herdr first",
      });
    case "confirmation_required":
      return new AppError("HERDR_REFUSED", `Herdr wants a human to confirm this (${detail})`, {
        hint: "closing this pane would close a worktree group; close it in Herdr yourself if that is intended",
      });
    case "herdr_internal":
      return new AppError("HERDR_REFUSED", `Herdr failed inside (${detail})`, {
        hint: "a fault in Herdr itself, not in this request; see Herdr's log (HERDR_LOG) and retry",
      });
    case "protocol":
    case "unknown":
      return new AppError("INTERNAL", `unexpected answer from Herdr (${detail})`);
    default:
      return new AppError("HERDR_REFUSED", detail);
  }
};

/** Awaits a herdr call, turning its failure into a AppError. */
export const viaHerdr = async <T>(call: Promise<T>): Promise<T> => {
  try {
    return await call;
  } catch (error) {
    throw herdrFailure(error);
  }
};
