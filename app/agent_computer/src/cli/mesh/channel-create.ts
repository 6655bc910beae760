import { membershipCommand } from "./channel-shared.ts";

export default membershipCommand(
  "create",
  "create a channel; you are its first member",
  "Names are unique: creating one that exists is CONFLICT (join it instead). A channel ends when its last member " +
    "leaves (or is unregistered or revoked); its name is held 24 hours after that (CONFLICT, saying when it is free), then " +
    "free for a new channel that shows none of the old one's posts.",
  ["CONFLICT"],
);
