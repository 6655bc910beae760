import { membershipCommand } from "./channel-shared.ts";

export default membershipCommand(
  "join",
  "join a channel: its posts reach your inbox from now on",
  "Joining twice changes nothing (changed: false). Past posts are in its history (agent-channel-cli read). A channel " +
    "with no members has ended: joining it is NOT_FOUND.",
  ["NOT_FOUND"],
);
