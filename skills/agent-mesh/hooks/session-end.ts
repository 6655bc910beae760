// Checks a closing Claude Code or Codex session out of the Agent Mesh, so the directory stops showing it as alive
// at once instead of for up to its ttl. The agent id is the one session-start.ts checked in as (same stdin JSON,
// same environment); the token comes from the vault, as there. Codex gives this hook a few seconds at most, so
// the check-out is killed after CHECKOUT_DEADLINE_MS; then the session simply expires at its ttl, as before.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { agentIdFor, binDir, parseHookInput, usableAgentId } from "./session-start.ts";

const client = process.argv[2] === "codex" ? "codex" : "claude";
const CHECKOUT_DEADLINE_MS = 2500;

const main = async (): Promise<void> => {
  const facts = parseHookInput(await new Response(Bun.stdin.stream()).text());
  const cwd = facts.cwd ?? process.cwd();
  const agentId = usableAgentId(agentIdFor(process.env, { ...facts, cwd }, client));
  if (agentId === null) return;
  const proc = Bun.spawn([join(binDir, "agent-checkout-cli"), "--agent-id", agentId, "--confirm", "--json"], {
    stdout: "ignore",
    stderr: "ignore",
    cwd: existsSync(cwd) ? cwd : undefined,
    timeout: CHECKOUT_DEADLINE_MS,
  });
  await proc.exited;
};

if (import.meta.main) await main().catch(() => undefined);
