// The host-local halves of a controller lease: the binding (which pane, agent and process hold it) and the raw
// credential (lease id + fence token). Both are 0600 files keyed by controller id; the credential is read only
// after the binding matched the caller, and is never printed, logged or passed in argv.
import { createHash } from "node:crypto";
import type { ProcessIdentity } from "../adapters/process-ancestry.ts";
import { type HerdrStateDirs, readJson, removeFile, writeJsonAtomic } from "./herdr-state.ts";

export interface ControllerBinding {
  version: 1;
  controller_id: string;
  generation: number;
  host_id: string;
  pane_id: string;
  terminal_id: string;
  workspace_id: string;
  agent_name: string;
  agent_kind: string;
  cwd: string;
  /** The Herdr server (socket, session) the binding was made under; absent in bindings made before it was kept. */
  herdr_server?: { socket: string; session: string | null };
  /** Null where procfs is missing; on Linux a binding without it must be resumed once. */
  process: ProcessIdentity | null;
  bound_at: number;
  /** Holders this lease's line took over from on this host: their panes are told they were fenced. */
  superseded?: SupersededHolder[];
}

export interface SupersededHolder {
  lease_ref: string;
  pane_id: string;
  terminal_id: string;
}

export interface ControllerCredential {
  version: 1;
  controller_id: string;
  lease_id: string;
  fence_token: string;
  generation: number;
}

const fileName = (controllerId: string): string => `${controllerId}.json`;

/** Only this digest of the fence token is stored where the fence is verified. */
export const fenceHashOf = (fenceToken: string): string => createHash("sha256").update(fenceToken).digest("hex");

export const readBinding = (dirs: HerdrStateDirs, controllerId: string): ControllerBinding | undefined =>
  readJson<ControllerBinding>(dirs.controllers, fileName(controllerId));

export const readCredential = (dirs: HerdrStateDirs, controllerId: string): ControllerCredential | undefined =>
  readJson<ControllerCredential>(dirs.credentials, fileName(controllerId));

/** Writes both halves; returns the credential file's path (the path may be shown, never its content). */
export const writeControllerFiles = (
  dirs: HerdrStateDirs,
  binding: ControllerBinding,
  credential: ControllerCredential,
): string => {
  const path = writeJsonAtomic(dirs.credentials, fileName(binding.controller_id), credential, { durable: true });
  writeJsonAtomic(dirs.controllers, fileName(binding.controller_id), binding, { durable: true });
  return path;
};

export const removeControllerFiles = (dirs: HerdrStateDirs, controllerId: string): void => {
  removeFile(dirs.credentials, fileName(controllerId));
  removeFile(dirs.controllers, fileName(controllerId));
};
