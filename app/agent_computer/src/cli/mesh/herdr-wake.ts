import type { CommandContext } from "../kernel/context.ts";

export interface HerdrWake {
  state: "off" | "armed" | "unsupported";
  reason: string | null;
}

/** Whether auto-wake can be armed for this check-in, and why not. */
export const herdrWakeFor = (
  options: { herdrPane?: string | undefined },
  ctx: CommandContext,
  _phase: "preview" | "confirm",
): HerdrWake => {
  if (!options.herdrPane) return { state: "off", reason: "no --herdr-pane given: poll agent-inbox-cli for new messages" };
  if (ctx.env.HERDR_ENV !== "1") {
    return { state: "unsupported", reason: "HERDR_ENV is not 1 (not inside a Herdr pane): poll agent-inbox-cli yourself" };
  }
  return { state: "unsupported", reason: "auto-wake is not available in this build: poll agent-inbox-cli yourself" };
};
