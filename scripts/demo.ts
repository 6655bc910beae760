// `npm run demo`: two agents check in and exchange a message through the real binaries, on the embedded
// SQLite store in a fresh state directory (so the demo never touches your own agents).

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

const root = join(import.meta.dir, "..");
const home = mkdtempSync(join(tmpdir(), "agent-computer-demo-"));
const env = { ...process.env, AGENT_COMPUTER_HOME: home };

const run = async (bin: string, args: string[], input?: string): Promise<string> => {
  console.log(`\n$ ${bin} ${args.map((a) => (/[\s']/.test(a) ? `'${a}'` : a)).join(" ")}`);
  const result = await execa(join(root, "bin", bin), args, { env, input, reject: false });
  if (result.stdout) console.log(result.stdout);
  if (result.exitCode !== 0) {
    console.error(result.stderr);
    throw new Error(`${bin} exited ${result.exitCode}`);
  }
  return result.stdout;
};

console.log(`Demo state directory (embedded SQLite): ${home}`);
await run("agent-checkin-cli", ["--agent-id", "alice", "--role", "builder", "--status", "writing the parser"]);
await run("agent-checkin-cli", ["--agent-id", "alice", "--role", "builder", "--status", "writing the parser", "--confirm"]);
await run("agent-checkin-cli", ["--agent-id", "bob", "--role", "reviewer", "--confirm"]);
await run("agents-list-cli", []);
await run("agent-send-cli", ["--from", "alice", "--to", "bob", "--body", "The parser is ready for review on branch parser-v2."]);
const inbox = JSON.parse(await run("agent-inbox-cli", ["--agent-id", "bob", "--json"])) as { messages: { seq: number }[] };
await run("agent-ack-cli", ["--agent-id", "bob", "--up-to-seq", String(inbox.messages.at(-1)?.seq ?? 1)]);
await run("agent-sent-cli", ["--agent-id", "alice"]);
writeFileSync(join(home, "README"), "State directory of an agent-computer demo run; safe to delete.\n");
console.log(`\nDone. Tokens were kept in ${join(home, "tokens")} (0600); delete ${home} when finished.`);
