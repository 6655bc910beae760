// Plans for agent-computer-admin's --help examples (see plan.ts): a store with an agent in it, and a backup to restore.
import { type CommandPlan, checkIn } from "./plan.ts";

const withStore = [checkIn("builder-1", "--token-file ./builder-1.token")];

export const ADMIN_PLANS: Record<string, CommandPlan> = {
  "agent-computer-admin (binary)": { given: withStore },
  "agent-computer-admin doctor": { given: withStore },
  "agent-computer-admin backup": { given: withStore },
  "agent-computer-admin restore": { given: [...withStore, "agent-computer-admin backup --to store.bak"] },
  "agent-computer-admin export": {
    given: [...withStore, checkIn("lead"), "agent-send-cli --agent-id lead --to builder-1 --body 'the plan'"],
  },
  "agent-computer-admin prune": { given: withStore },
};
