import { listChangeCommand } from "./contacts-shared.ts";

export default listChangeCommand(
  "allow",
  "put agents on your allow list (taking them off your block list)",
  "Under contacts-only, only these agents may message you. Under open the list changes nothing until you switch.",
  "agent-contacts-cli allow --agent-id builder-1 --contact reviewer-1 --contact release",
);
