// What the Herdr coordination services need from the outside world; the CLI builds it, tests may fake parts.
import { randomUUID } from "node:crypto";
import { createGit, type Git } from "../../adapters/git.ts";
import type { Herdr } from "../../adapters/herdr/client.ts";
import type { HerdrStateDirs } from "../../local/herdr-state.ts";
import type { Store } from "../../store/port.ts";
import { type ReservationLock, withReservations } from "./reservation-lock.ts";

export interface HerdrDeps {
  herdr: Herdr;
  env: Record<string, string | undefined>;
  dirs: HerdrStateDirs;
  /** This machine's stable id; records of other hosts are never taken over. */
  hostId: string;
  now(): number;
  store(): Promise<Store>;
  git(worktree: string): Git;
  sleep(ms: number): Promise<void>;
  newId(): string;
}

export const defaultGit = (env: Record<string, string | undefined>) => (worktree: string) => createGit(worktree, env);

export const newHexId = (): string => randomUUID().replaceAll("-", "");

/** Runs fn under the named host-local reservation locks. */
export const reserve = <T>(deps: HerdrDeps, names: readonly ReservationLock[], fn: () => Promise<T>): Promise<T> =>
  withReservations(deps.dirs.locks, names, { hostId: deps.hostId }, fn);
