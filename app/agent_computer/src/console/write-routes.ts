// The console's writes: a message (or a reply), a channel post and marking the human's mail read, sent as the console's human agent through
// the same services every agent's sends and posts go through (recipients' policies, rate limits, delivery rules).
// Nothing is read from a form until the cookie and the Origin pass, nothing is written until its token and its
// fields pass (form-guard.ts, forms.ts); a refused write answers with the reason and writes nothing.
import { ackMessages } from "../domain/mesh/ack.ts";
import { channelAction } from "../domain/mesh/channels.ts";
import { sendMessage } from "../domain/mesh/send.ts";
import { AppError, ERROR_CODES, EXIT } from "../errors.ts";
import { CHANNEL_POST_ACTION, COMPOSE_ACTION, composePage } from "./compose-page.ts";
import { type ComposeInput, composeState } from "./compose-route.ts";
import type { ConsoleDeps, ConsoleRoutes, RouteHandler } from "./console-deps.ts";
import { MAX_FORM_BYTES, refuseBeforeBody, refuseFormToken } from "./form-guard.ts";
import { fieldsOf, parseChannelPost, parseCompose, parseMessageId } from "./forms.ts";
import { hostAllowed } from "./host-guard.ts";
import { ensureHumanAgent, type HumanAgent } from "./human-agent.ts";
import { ACK_ACTION } from "./message-list.ts";
import { pageResponse, refusedHost, refusedWrite, seeOther } from "./responses.ts";

const HTTP_STATUS: Record<number, number> = {
  [EXIT.usage]: 400,
  [EXIT.auth]: 403,
  [EXIT.conflict]: 409,
  [EXIT.notFound]: 404,
  [EXIT.rateLimited]: 429,
  [EXIT.unavailable]: 503,
};

/** A refused send shows the form again with what was typed; an unexpected failure goes to the log, not the page. */
const refusedForm = async (ctx: ConsoleDeps, input: ComposeInput, error: unknown): Promise<Response> => {
  let status = 503;
  let text = "the store could not take the write; the worker log says why";
  if (error instanceof AppError) {
    status = HTTP_STATUS[ERROR_CODES[error.code].exit] ?? 500;
    text = `${error.code}: ${error.message}${error.hint ? ` (${error.hint})` : ""}`;
  } else {
    ctx.logError("console write failed", { error: String(error) });
  }
  return pageResponse(
    composePage(await composeState(ctx, { ...input, error: { form: input.error?.form ?? "compose", text } })),
    "/compose",
    status,
  );
};

/** One registration at a time: two first writes at once must not both try to register the name. */
const humanOf = (ctx: ConsoleDeps): (() => Promise<HumanAgent>) => {
  let queue: Promise<unknown> = Promise.resolve();
  return () => {
    const next = queue.then(() => ensureHumanAgent(ctx.deps, ctx.paths, ctx.humanAgentId));
    queue = next.catch(() => undefined);
    return next;
  };
};

const guarded =
  (ctx: ConsoleDeps, action: string, act: (form: URLSearchParams) => Promise<Response>): RouteHandler =>
  async (request) => {
    if (!hostAllowed(ctx.bindHost, request.headers.get("host"))) return refusedHost(ctx.localUrl());
    const refusal = refuseBeforeBody(request, ctx.token, ctx.localUrl());
    if (refusal) return refusedWrite(refusal.status, refusal.reason);
    if (!(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) {
      return refusedWrite(415, "a console form is sent as application/x-www-form-urlencoded");
    }
    const text = await request.text();
    if (Buffer.byteLength(text, "utf8") > MAX_FORM_BYTES) return refusedWrite(413, "the form is too large");
    const form = new URLSearchParams(text);
    const badToken = refuseFormToken(form, ctx.token, action);
    if (badToken) return refusedWrite(badToken.status, badToken.reason);
    return act(form);
  };

const threadOf = (id: string, threadId: string | null): string => `/thread?id=${encodeURIComponent(threadId ?? id)}#${id}`;

export const writeRoutes = (ctx: ConsoleDeps): ConsoleRoutes => {
  const human = humanOf(ctx);
  const send = async (form: URLSearchParams): Promise<Response> => {
    const fields = fieldsOf(form, ["to", "reply_to", "body"]);
    const input: ComposeInput = { to: fields.to, body: fields.body, replyToId: fields.reply_to };
    const parsed = parseCompose(fields);
    if (!parsed.ok) return refusedForm(ctx, input, new AppError("INVALID_INPUT", parsed.error));
    const { to, reply_to: replyTo, body } = parsed.value;
    try {
      const me = await human();
      const sent = await sendMessage(ctx.deps, {
        from: me.agentId,
        token: me.token,
        recipients: replyTo ? { kind: "reply" } : { kind: "to", agentIds: to ?? [] },
        body,
        replyTo,
      });
      // Answered is read: the message replied to leaves the human's unread mail (and is not bounced when it ends).
      if (replyTo) {
        await ackMessages(ctx.deps, { agentId: me.agentId, token: me.token, messageIds: [replyTo] }).catch((error: unknown) =>
          ctx.logError("console could not mark a replied message read", { message_id: replyTo, error: String(error) }),
        );
      }
      return seeOther(threadOf(sent.id, sent.thread_id));
    } catch (error) {
      return refusedForm(ctx, input, error);
    }
  };
  const post = async (form: URLSearchParams): Promise<Response> => {
    const fields = fieldsOf(form, ["channel", "body"]);
    const input: ComposeInput = { channel: fields.channel, body: fields.body, error: { form: "channel", text: "" } };
    const parsed = parseChannelPost(fields);
    if (!parsed.ok) return refusedForm(ctx, input, new AppError("INVALID_INPUT", parsed.error));
    try {
      const me = await human();
      const { channel, body } = parsed.value;
      await channelAction(ctx.deps, { agentId: me.agentId, token: me.token, action: { kind: "join", channel } });
      const posted = await channelAction(ctx.deps, {
        agentId: me.agentId,
        token: me.token,
        action: { kind: "post", channel, body },
      });
      return seeOther(threadOf(posted.post?.id ?? "", null));
    } catch (error) {
      return refusedForm(ctx, input, error);
    }
  };
  const markRead = async (form: URLSearchParams): Promise<Response> => {
    const parsed = parseMessageId(fieldsOf(form, ["message_id"]));
    if (!parsed.ok) return refusedWrite(400, parsed.error);
    try {
      const me = await human();
      await ackMessages(ctx.deps, { agentId: me.agentId, token: me.token, messageIds: [parsed.value.message_id] });
      return seeOther(`/messages#${parsed.value.message_id}`);
    } catch (error) {
      return refusedForm(ctx, {}, error);
    }
  };
  return {
    [COMPOSE_ACTION]: { POST: guarded(ctx, COMPOSE_ACTION, send) },
    [CHANNEL_POST_ACTION]: { POST: guarded(ctx, CHANNEL_POST_ACTION, post) },
    [ACK_ACTION]: { POST: guarded(ctx, ACK_ACTION, markRead) },
  };
};
