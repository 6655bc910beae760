// The Write page as the GET route builds it (prefilled from ?to=, ?reply_to=, ?channel=) and as a refused form
// shows it again, with what was typed and why it was not sent.
import { channelsOverview, messageOverview } from "../domain/mesh/operator-view.ts";
import { CHANNEL_POST_ACTION, COMPOSE_ACTION, type ComposeState, composePage } from "./compose-page.ts";
import { type ConsoleDeps, LIMITS } from "./console-deps.ts";
import { formToken } from "./form-guard.ts";
import type { Page } from "./layout.ts";

export type ComposeInput = Omit<ComposeState, "human" | "tokens" | "channels" | "replyTo"> & { replyToId?: string | undefined };

export const composeState = async (ctx: ConsoleDeps, input: ComposeInput): Promise<ComposeState> => {
  const [channels, replyTo] = await Promise.all([
    channelsOverview(ctx.deps, LIMITS.channels),
    input.replyToId ? messageOverview(ctx.deps, input.replyToId, ctx.humanAgentId) : undefined,
  ]);
  return {
    ...input,
    human: ctx.humanAgentId,
    tokens: { compose: formToken(ctx.token, COMPOSE_ACTION), channelPost: formToken(ctx.token, CHANNEL_POST_ACTION) },
    channels: channels.channels,
    replyTo,
  };
};

export const composeRoute = async (ctx: ConsoleDeps, url: URL): Promise<Page> =>
  composePage(
    await composeState(ctx, {
      to: url.searchParams.get("to") ?? undefined,
      channel: url.searchParams.get("channel") ?? undefined,
      replyToId: url.searchParams.get("reply_to") ?? undefined,
    }),
  );
