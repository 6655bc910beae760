// A scripted stand-in for the Anthropic Messages API, so the real Claude Code client runs offline: it answers
// `POST /v1/messages` with server-sent events in the API's streaming shape, from a script the test writes,
// and keeps every request body for the test to read. Loopback only, any free port.

/** One request the client sent, as parsed JSON (`model`, `system`, `messages`, `tools`, …). */
export interface MessagesRequest {
  messages: Array<{ role: string; content: unknown }>;
  system?: unknown;
  tools?: Array<{ name: string }>;
  [key: string]: unknown;
}

/** What the scripted model says: plain text, or one tool call (e.g. Bash with `{command}`). */
export type ScriptedReply = { text: string } | { tool: string; input: Record<string, unknown> };

export interface ScriptedMessagesApi {
  /** The base URL for ANTHROPIC_BASE_URL. */
  url: string;
  requests: MessagesRequest[];
  stop(): Promise<void>;
}

const event = (type: string, data: Record<string, unknown>): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

let nextId = 0;

/** The SSE stream of one assistant message holding `reply` as its single content block. */
export const streamOf = (reply: ScriptedReply, model: string): string => {
  nextId += 1;
  const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: `msg_scripted_${nextId}`, type: "message", role: "assistant", model, content: [], stop_reason: null };
  const [block, delta, stopReason] =
    "text" in reply
      ? [{ type: "text", text: "" }, { type: "text_delta", text: reply.text }, "end_turn"]
      : [
          { type: "tool_use", id: `toolu_scripted_${nextId}`, name: reply.tool, input: {} },
          { type: "input_json_delta", partial_json: JSON.stringify(reply.input) },
          "tool_use",
        ];
  return [
    event("message_start", { message: { ...message, stop_sequence: null, usage } }),
    event("content_block_start", { index: 0, content_block: block }),
    event("content_block_delta", { index: 0, delta }),
    event("content_block_stop", { index: 0 }),
    event("message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } }),
    event("message_stop", {}),
  ].join("");
};

/** The script may be async: a test can act between two requests (e.g. send mail) before the model answers. */
export const startScriptedMessagesApi = (
  script: (request: MessagesRequest) => ScriptedReply | Promise<ScriptedReply>,
): ScriptedMessagesApi => {
  const requests: MessagesRequest[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || path !== "/v1/messages") {
        return Response.json({ type: "error", error: { type: "not_found_error", message: path } }, { status: 404 });
      }
      const body = (await request.json()) as MessagesRequest;
      requests.push(body);
      return new Response(streamOf(await script(body), String(body.model ?? "scripted")), {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    stop: async () => {
      await server.stop(true);
    },
  };
};

/** Every text the model was shown in a request: system blocks and message contents, flattened. */
export const textsOf = (request: MessagesRequest): string[] => {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value && typeof value === "object") {
      const record = value as Record<string, unknown>;
      if (typeof record.text === "string") out.push(record.text);
      if ("content" in record) walk(record.content);
    }
  };
  walk(request.system);
  for (const message of request.messages) walk(message.content);
  return out;
};

/** The tool_result texts in a request's last user message (what a tool call printed), or [] when there is none. */
export const toolResultsOf = (request: MessagesRequest): string[] => {
  const last = request.messages.at(-1);
  if (last?.role !== "user" || !Array.isArray(last.content)) return [];
  return last.content
    .filter((block: { type?: string }) => block.type === "tool_result")
    .flatMap((block: { content?: unknown }) => textsOf({ messages: [{ role: "user", content: block.content }] }));
};
