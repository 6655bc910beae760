// A private, real tmux server for a test: its socket lives in the test's temp dir (never the user's server), each
// pane runs a scripted "agent" that records every line typed into it, and stop() kills the server.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

export interface TmuxAgentPane {
  pane: string;
  pid: number;
  command: string;
  /** Every line the pane's program received so far. */
  received(): string[];
}

const AGENT_SCRIPT = `#!/bin/sh
# A scripted agent: shows a prompt, appends each line it receives to $1.
printf '> '
while IFS= read -r line; do
  printf '%s\\n' "$line" >> "$1"
  printf '> '
done
`;

export const startTmuxWorld = async () => {
  const dir = mkdtempSync(join(tmpdir(), "ac-tmux-"));
  const socket = join(dir, "tmux.sock");
  const script = join(dir, "agent.sh");
  writeFileSync(script, AGENT_SCRIPT, { mode: 0o755 });
  const tmux = async (...args: string[]) => {
    const result = await execa("tmux", ["-S", socket, "-f", "/dev/null", ...args], { reject: false, stdin: "ignore" });
    if (result.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
    return result.stdout.trim();
  };
  let panes = 0;
  await tmux("new-session", "-d", "-s", "world", "-x", "200", "-y", "50", "sleep 100000");

  /** A new window whose pane runs the scripted agent (or `command`, with `env` added and in `cwd`). */
  const newPane = async (
    command?: string[],
    options: { env?: Record<string, string>; cwd?: string } = {},
  ): Promise<TmuxAgentPane> => {
    const log = join(dir, `received-${++panes}.txt`);
    writeFileSync(log, "");
    const argv = command ?? ["sh", script, log];
    const extra = [
      ...Object.entries(options.env ?? {}).flatMap(([key, value]) => ["-e", `${key}=${value}`]),
      ...(options.cwd ? ["-c", options.cwd] : []),
    ];
    const shown = await tmux("new-window", "-d", "-P", "-F", "#{pane_id} #{pane_pid}", "-t", "world", ...extra, ...argv);
    const [pane, pid] = shown.split(" ");
    const current = await tmux("display-message", "-p", "-t", pane as string, "#{pane_current_command}");
    return {
      pane: pane as string,
      pid: Number(pid),
      command: current,
      received: () =>
        readFileSync(log, "utf8")
          .split("\n")
          .filter((line) => line !== ""),
    };
  };

  return {
    dir,
    socket,
    tmux,
    newPane,
    /** What a person at the keyboard does: keys into the pane, literally. */
    typeAsPerson: (pane: string, text: string) => tmux("send-keys", "-t", pane, "-l", text),
    stop: async () => {
      await execa("tmux", ["-S", socket, "kill-server"], { reject: false });
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

export type TmuxWorld = Awaited<ReturnType<typeof startTmuxWorld>>;
