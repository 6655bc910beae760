import { membershipCommand } from "./channel-shared.ts";

export default membershipCommand(
  "leave",
  "leave a channel: no more of its posts reach you",
  "Posts already in your inbox stay there. Leaving a channel you are not in changes nothing (changed: false). The last " +
    "member to leave ends the channel (note says when its name is free again: 24 hours later).",
  ["NOT_FOUND"],
);
