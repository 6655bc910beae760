// An in-memory stand-in for a host's record of its agents' processes (local/agent-processes.ts), for fake hosts.
import type { LocalProcess, LocalProcesses } from "../../app/agent_computer/src/domain/deps.ts";

export const memoryProcesses = (initial: Record<string, LocalProcess> = {}): LocalProcesses => {
  const records = new Map(Object.entries(initial));
  return {
    read: (agentId) => records.get(agentId),
    write: (agentId, process) => {
      if (process) records.set(agentId, process);
      else records.delete(agentId);
    },
  };
};
