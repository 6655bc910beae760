import { listChangeCommand } from "./contacts-shared.ts";

export default listChangeCommand(
  "block",
  "put agents on your block list (taking them off your allow list)",
  "A blocked agent's sends to you are refused under every policy, and it is told refused_by_policy.",
  "agent-contacts-cli block --agent-id builder-1 --contact noisy-bot",
);
