// Checks agents in through the real binary and keeps their tokens in files, as a user would.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runBin } from "./bin.ts";

export interface TestAgent {
  id: string;
  tokenFile: string;
}

export const checkInAgent = async (
  env: Record<string, string>,
  dir: string,
  id: string,
  extra: string[] = [],
): Promise<TestAgent> => {
  const result = await runBin("agent-checkin-cli", ["--agent-id", id, "--confirm", "--json", ...extra], { env });
  if (result.exitCode !== 0) throw new Error(`check-in of ${id} failed: ${result.stderr}`);
  const token = result.json<{ agent_token?: string }>().agent_token;
  const tokenFile = join(dir, `${id}.token`);
  if (token) writeFileSync(tokenFile, token, { mode: 0o600 });
  return { id, tokenFile };
};
