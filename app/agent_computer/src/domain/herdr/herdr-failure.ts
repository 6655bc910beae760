// A failed herdr call as the stable error a caller of our CLIs sees. Herdr's own code travels in the message;
// its raw stderr never does (the adapter already dropped it).
import { type HerdrError, isHerdrError } from "../../adapters/herdr/client.ts";
import { AppError } from "../../errors.ts";

export const herdrFailure = (error: unknown): unknown => {
  if (!isHerdrError(error)) return error;
  const e = error as HerdrError;
  const detail = `${e.command}: ${e.herdrCode ?? e.kind}: ${e.message}`;
  switch (e.kind) {
    case "not_installed":
    case "server_unavailable":
    case "version_mismatch":
      return new AppError("UNAVAILABLE", `Herdr is not usable here (${detail})`, {
        hint: "run inside Herdr with its server running (herdr status)",
      });
    case "timeout":
      return new AppError("TIMEOUT", detail);
    case "not_found":
      return new AppError("NOT_FOUND", detail);
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
