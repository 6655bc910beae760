// The owner's WorkerEnv: variables every attempt of the owner's jobs receives, read fresh at each attempt.
// Values are secrets as far as output goes: listings show the key, the length and when it was set.
import { AppError } from "../../errors.ts";
import { type Deps, iso } from "../deps.ts";
import { authenticate } from "../identity/authenticate.ts";
import type { OwnerCall } from "./jobs.ts";

export const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const MAX_VALUE_BYTES = 32_768;
export const MAX_ENTRIES = 200;
/** Names the worker sets itself for every attempt; a WorkerEnv entry may not replace them. */
const RESERVED = /^(AGENT_COMPUTER_|MCPORTER_|BUN_|XDG_)|^(PATH|HOME|TMPDIR|NODE_PATH|NODE_OPTIONS)$/;

export const envKeyProblem = (key: string): string | undefined => {
  if (!ENV_KEY.test(key))
    return `${JSON.stringify(key.slice(0, 40))} is not a variable name (A-Z a-z 0-9 _, not starting with a digit)`;
  if (RESERVED.test(key)) return `${key} is set by the worker for every attempt and cannot be overridden`;
  return undefined;
};

/** KEY=VALUE lines; blank lines and lines starting with # are skipped; the value is everything after the first =. */
export const parseEnvLines = (text: string): { key: string; value: string }[] => {
  const entries = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === "" || line.trimStart().startsWith("#")) return;
    const at = line.indexOf("=");
    const where = `line ${index + 1}`;
    if (at <= 0) throw new AppError("INVALID_INPUT", `--file: ${where} is not KEY=VALUE`);
    const key = line.slice(0, at).trim();
    const problem = envKeyProblem(key);
    if (problem) throw new AppError("INVALID_INPUT", `--file: ${where}: ${problem}`);
    const value = line.slice(at + 1);
    if (Buffer.byteLength(value, "utf8") > MAX_VALUE_BYTES)
      throw new AppError("INVALID_INPUT", `--file: ${where}: the value of ${key} is over ${MAX_VALUE_BYTES} bytes`);
    entries.set(key, value);
  });
  if (entries.size === 0) throw new AppError("INVALID_INPUT", "--file: no KEY=VALUE line found");
  return [...entries].map(([key, value]) => ({ key, value }));
};

export interface MaskedEntry {
  key: string;
  value: string;
  length: number;
  updated_at: string;
}

const MASK = "********";

export const setWorkerEnv = (
  deps: Deps,
  input: OwnerCall & { entries: { key: string; value: string }[] },
): Promise<{ agent_id: string; set: string[]; count: number }> =>
  deps.store.write(
    async (tx) => {
      await authenticate(tx, input.agentId, input.token);
      // Counted and written under the owner's agent row: a racing set for the same owner waits, then counts these.
      await tx.mesh.lockAgents([input.agentId]);
      const existing = new Set((await tx.automation.listEnv(input.agentId)).map((e) => e.key));
      const after = new Set([...existing, ...input.entries.map((e) => e.key)]);
      if (after.size > MAX_ENTRIES) throw new AppError("INVALID_INPUT", `--file: at most ${MAX_ENTRIES} variables per agent`);
      await tx.automation.setEnv(input.agentId, input.entries, deps.now());
      return { agent_id: input.agentId, set: input.entries.map((e) => e.key), count: after.size };
    },
    { agents: [input.agentId] },
  );

export const unsetWorkerEnv = (deps: Deps, input: OwnerCall & { keys: string[] }) =>
  deps.store.write(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const removed = await tx.automation.unsetEnv(input.agentId, input.keys);
    return { agent_id: input.agentId, removed, not_set: input.keys.filter((k) => !removed.includes(k)) };
  });

export const listWorkerEnv = (deps: Deps, input: OwnerCall): Promise<{ agent_id: string; variables: MaskedEntry[] }> =>
  deps.store.read(async (tx) => {
    await authenticate(tx, input.agentId, input.token);
    const entries = await tx.automation.listEnv(input.agentId);
    return {
      agent_id: input.agentId,
      variables: entries.map((e) => ({ key: e.key, value: MASK, length: e.value.length, updated_at: iso(e.updatedAt) })),
    };
  });
