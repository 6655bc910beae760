// Whether a pane still exists, by its exact id. Only Herdr's own answer pane_not_found says "gone" (pane ids are
// never reused); a failed read, a server that is down or restarting, or any other error says nothing either way.
import { type Herdr, isHerdrError } from "../../adapters/herdr/client.ts";

export type PanePresence = { kind: "present" } | { kind: "gone" } | { kind: "unknown"; error: unknown };

export const observePane = async (herdr: Herdr, paneId: string): Promise<PanePresence> => {
  try {
    await herdr.getPane(paneId);
    return { kind: "present" };
  } catch (error) {
    if (isHerdrError(error, "not_found") && error.herdrCode === "pane_not_found") return { kind: "gone" };
    return { kind: "unknown", error };
  }
};
