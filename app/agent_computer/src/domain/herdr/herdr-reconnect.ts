// Riding out a Herdr server restart or live handoff: a read cut by one is made again until the caller's deadline.
// Only reads go through here; a write is never repeated.
import { isHerdrError } from "../../adapters/herdr/client.ts";

/** How soon a call cut by a Herdr server restart or live handoff is tried again. */
const RECONNECT_PAUSE_MS = 250;

/**
 * A Herdr server restart or live handoff cuts every call in flight (the connection closes without an answer:
 * `interrupted`) and refuses new ones until the server is back (`server_unavailable`); a server busy or shutting
 * down answers Herdr's own server_unavailable (`transient`). None says anything about the agent, so the caller reads
 * again and waits again with the same cursor while its deadline allows. An answer that breaks Herdr's contract
 * (`protocol`) is not one of these: asking again would get the same answer.
 */
export const isInterrupted = (error: unknown): boolean =>
  isHerdrError(error, "interrupted") || isHerdrError(error, "server_unavailable") || isHerdrError(error, "transient");

export const pauseBefore = (deadline: number): Promise<void> =>
  Bun.sleep(Math.max(0, Math.min(RECONNECT_PAUSE_MS, deadline - Date.now())));

/** Runs a Herdr call again after an interruption until the deadline; any other failure, or the deadline, throws. */
export const surviving = async <T>(call: () => Promise<T>, deadline: number): Promise<T> => {
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!isInterrupted(error) || Date.now() >= deadline) throw error;
      await pauseBefore(deadline);
    }
  }
};
