// What the Herdr coordination services need from the outside world; the CLI builds it, tests may fake parts.
import type { Git } from "../../adapters/git.ts";
import type { Herdr } from "../../adapters/herdr/client.ts";
import type { HerdrStateDirs } from "../../local/herdr-state.ts";
import type { Deps, LocalHost } from "../deps.ts";
import { type ReservationLock, withReservations } from "./reservation-lock.ts";

/** The deps of every process plus the Herdr adapter, git and this host's state dirs. */
export interface HerdrDeps extends Deps {
  herdr: Herdr;
  env: Record<string, string | undefined>;
  dirs: HerdrStateDirs;
  /** This machine's id (records of other hosts are never taken over) and its process probe. */
  local: LocalHost;
  git(worktree: string): Git;
  sleep(ms: number): Promise<void>;
}

/** Runs fn under the named host-local reservation locks. */
export const reserve = <T>(deps: HerdrDeps, names: readonly ReservationLock[], fn: () => Promise<T>): Promise<T> =>
  withReservations(deps.dirs.locks, names, { hostId: deps.local.hostId }, fn);
