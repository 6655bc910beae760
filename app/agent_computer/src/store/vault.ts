import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { Paths } from "../paths.ts";

// The token vault: one 0600 file per agent in a 0700 directory of this host's state dir. It is local on
// purpose: tokens never travel through a shared store.

const fileOf = (paths: Paths, agentId: string): string => `${paths.vaultDir}/${agentId}.token`;

export const readVaultToken = (paths: Paths, agentId: string): string | undefined => {
  const file = fileOf(paths, agentId);
  return existsSync(file) ? readFileSync(file, "utf8").trim() || undefined : undefined;
};

export const writeVaultToken = (paths: Paths, agentId: string, token: string): string => {
  mkdirSync(paths.vaultDir, { recursive: true, mode: 0o700 });
  chmodSync(paths.vaultDir, 0o700);
  const file = fileOf(paths, agentId);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${token}\n`, { mode: 0o600 });
  renameSync(temp, file);
  return file;
};

export const removeVaultToken = (paths: Paths, agentId: string): void => {
  rmSync(fileOf(paths, agentId), { force: true });
};
