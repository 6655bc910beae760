import { errorText } from "../errors.ts";
import type { Paths } from "../paths.ts";

// The token vault: one 0600 file per agent in a 0700 directory of this host's state dir. It is local on
// purpose: tokens never travel through a shared store. Reads use Bun.file; node:fs (two milliseconds of
// start-up, brought by private-files.ts) is loaded only by the commands that write or remove a token.

const nameOf = (agentId: string): string => `${agentId}.token`;

export const readVaultToken = async (paths: Paths, agentId: string): Promise<string | undefined> => {
  const file = Bun.file(`${paths.vaultDir}/${nameOf(agentId)}`);
  return (await file.exists()) ? (await file.text()).trim() || undefined : undefined;
};

export const writeVaultToken = async (paths: Paths, agentId: string, token: string): Promise<string> => {
  const { writePrivateFile } = await import("./private-files.ts");
  return writePrivateFile(paths.vaultDir, nameOf(agentId), `${token}\n`);
};

/**
 * Saves a token just minted to the vault. The registration has committed by then and the token exists nowhere
 * else, so a failed save (disk full, permissions) is reported beside the token instead of thrown, which would
 * lose it.
 */
export const keepInVault = async (
  paths: Paths,
  agentId: string,
  token: string,
): Promise<{ vault_file?: string; warning?: string }> => {
  try {
    return { vault_file: await writeVaultToken(paths, agentId, token) };
  } catch (error) {
    return {
      warning: `the token was not saved to the vault in ${paths.vaultDir} (${errorText(error)}); it is shown only this once: keep it`,
    };
  }
};

export const removeVaultToken = async (paths: Paths, agentId: string): Promise<void> => {
  const { removePrivateFile } = await import("./private-files.ts");
  removePrivateFile(paths.vaultDir, nameOf(agentId));
};
