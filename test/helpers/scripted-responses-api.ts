// A scripted stand-in for the OpenAI Responses API, so the real Codex client runs offline: Codex (0.171) speaks
// only the Responses wire API (`wire_api = "chat"` is refused), and a `model_providers` entry in its
// config.toml with `base_url` pointing here makes it call `POST <base_url>/responses`, streaming. Every request
// body is kept for the test to read. Loopback only, any free port.

/** One request the client sent, as parsed JSON (`model`, `instructions`, `input`, `tools`, …). */
export interface ResponsesRequest {
  input: Array<Record<string, unknown>>;
  instructions?: unknown;
  tools?: Array<{ type?: string; name?: string }>;
  [key: string]: unknown;
}

/** What the scripted model says: plain text, or one function call (e.g. the shell tool with its arguments). */
export type ScriptedResponse = { text: string } | { call: string; arguments: Record<string, unknown> };

export interface ScriptedResponsesApi {
  /** The base_url for the provider entry (ends in /v1). */
  url: string;
  requests: ResponsesRequest[];
  /** Paths of requests that were not `POST /v1/responses`, so a test can see what else the client tried. */
  others: string[];
  stop(): Promise<void>;
}

const event = (type: string, data: Record<string, unknown>): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

let nextId = 0;

/** The SSE stream of one response holding `reply` as its single output item. */
export const responseStreamOf = (reply: ScriptedResponse, model: string): string => {
  nextId += 1;
  const id = `resp_scripted_${nextId}`;
  const item =
    "text" in reply
      ? {
          type: "message",
          id: `msg_scripted_${nextId}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: reply.text, annotations: [] }],
        }
      : {
          type: "function_call",
          id: `fc_scripted_${nextId}`,
          status: "completed",
          name: reply.call,
          arguments: JSON.stringify(reply.arguments),
          call_id: `call_scripted_${nextId}`,
        };
  const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
  return [
    event("response.created", { response: { id, object: "response", model, status: "in_progress", output: [] } }),
    event("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress" } }),
    event("response.output_item.done", { output_index: 0, item }),
    event("response.completed", { response: { id, object: "response", model, status: "completed", output: [item], usage } }),
  ].join("");
};

export const startScriptedResponsesApi = (
  script: (request: ResponsesRequest) => ScriptedResponse | Promise<ScriptedResponse>,
): ScriptedResponsesApi => {
  const requests: ResponsesRequest[] = [];
  const others: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || path !== "/v1/responses") {
        others.push(`${request.method} ${path}`);
        return Response.json({ error: { type: "not_found", message: path } }, { status: 404 });
      }
      const body = (await request.json()) as ResponsesRequest;
      requests.push(body);
      return new Response(responseStreamOf(await script(body), String(body.model ?? "scripted")), {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1`,
    requests,
    others,
    stop: async () => {
      await server.stop(true);
    },
  };
};

/** Every text in a request: instructions and each input item's text, content and function-call output. */
export const responseTextsOf = (request: ResponsesRequest): string[] => {
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value && typeof value === "object") {
      const record = value as Record<string, unknown>;
      for (const key of ["text", "content", "output", "arguments"]) if (key in record) walk(record[key]);
    }
  };
  walk(request.instructions);
  walk(request.input);
  return out;
};
