import { listChangeCommand } from "./contacts-shared.ts";

export default listChangeCommand(
  "forget",
  "take agents off both your lists",
  "The agents are then treated as any other sender under your policy.",
  "agent-contacts-cli forget --agent-id builder-1 --contact noisy-bot",
);
