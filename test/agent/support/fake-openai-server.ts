// A fake OpenAI-compatible server on loopback for the provider tests: it answers
// `POST /v1/chat/completions` with scripted responses (SSE when the request streams) and records
// every request body. It is not a model.
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/** A scripted answer: text, or one tool call; usage as the server reports it. */
export type FakeReply =
  | { text: string; usage?: FakeUsage }
  | {
      toolCall: { id: string; name: string; arguments: unknown };
      usage?: FakeUsage;
    };

interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface RecordedRequest {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface FakeOpenAIServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts the fake server; call `n` gets `replies[n]` (a 500 when the script runs out). */
export async function startFakeOpenAIServer(
  replies: FakeReply[],
): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    // A failed request answers 500 instead of leaving an unhandled rejection.
    void respond(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });
  async function respond(
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    requests.push({
      path: request.url ?? "",
      authorization: request.headers.authorization,
      body,
    });
    const reply = replies[requests.length - 1];
    if (request.url !== "/v1/chat/completions" || !reply) {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: { message: "fake server: no scripted reply" },
        }),
      );
      return;
    }
    const model = String(body.model);
    if (body.stream === true) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const chunk of streamChunks(reply, model))
        response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      response.end("data: [DONE]\n\n");
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(completion(reply, model)));
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      ),
  };
}

// --- Internal helpers ---

const DEFAULT_USAGE: FakeUsage = { prompt_tokens: 12, completion_tokens: 7 };

function streamChunks(reply: FakeReply, model: string): unknown[] {
  const base = {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1,
    model,
  };
  const usage = usageOf(reply);
  if ("toolCall" in reply) {
    const { id, name } = reply.toolCall;
    const json = JSON.stringify(reply.toolCall.arguments);
    const half = Math.ceil(json.length / 2);
    const call = (fields: Record<string, unknown>) => ({
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, ...fields }] },
          finish_reason: null,
        },
      ],
    });
    return [
      call({
        id,
        type: "function",
        function: { name, arguments: json.slice(0, half) },
      }),
      call({ function: { arguments: json.slice(half) } }),
      {
        ...base,
        choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }],
      },
      { ...base, choices: [], usage },
    ];
  }
  const words = reply.text.split(/(?<= )/);
  return [
    {
      ...base,
      choices: [
        {
          index: 0,
          delta: { role: "assistant", content: "" },
          finish_reason: null,
        },
      ],
    },
    ...words.map((word) => ({
      ...base,
      choices: [{ index: 0, delta: { content: word }, finish_reason: null }],
    })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { ...base, choices: [], usage },
  ];
}

function completion(reply: FakeReply, model: string): unknown {
  const message =
    "toolCall" in reply
      ? {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: reply.toolCall.id,
              type: "function",
              function: {
                name: reply.toolCall.name,
                arguments: JSON.stringify(reply.toolCall.arguments),
              },
            },
          ],
        }
      : { role: "assistant", content: reply.text };
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1,
    model,
    choices: [
      {
        index: 0,
        message,
        finish_reason: "toolCall" in reply ? "tool_calls" : "stop",
      },
    ],
    usage: usageOf(reply),
  };
}

function usageOf(reply: FakeReply) {
  const usage = reply.usage ?? DEFAULT_USAGE;
  return {
    ...usage,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
