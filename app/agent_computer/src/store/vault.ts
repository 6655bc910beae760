import type { Paths } from "../paths.ts";

// The token vault: one 0600 file per agent in a 0700 directory of this host's state dir. It is local on
// purpose: tokens never travel through a shared store. Reads use Bun.file; node:fs (two milliseconds of
// start-up) is loaded only by the commands that write or remove a token.

const fileOf = (paths: Paths, agentId: string): string => `${paths.vaultDir}/${agentId}.token`;

export const readVaultToken = async (paths: Paths, agentId: string): Promise<string | undefined> => {
  const file = Bun.file(fileOf(paths, agentId));
  return (await file.exists()) ? (await file.text()).trim() || undefined : undefined;
};

export const writeVaultToken = async (paths: Paths, agentId: string, token: string): Promise<string> => {
  const { chmodSync, mkdirSync, renameSync, writeFileSync } = await import("node:fs");
  mkdirSync(paths.vaultDir, { recursive: true, mode: 0o700 });
  chmodSync(paths.vaultDir, 0o700);
  const file = fileOf(paths, agentId);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${token}\n`, { mode: 0o600 });
  renameSync(temp, file);
  return file;
};

export const removeVaultToken = async (paths: Paths, agentId: string): Promise<void> => {
  const { rmSync } = await import("node:fs");
  rmSync(fileOf(paths, agentId), { force: true });
};
