// A fake model for the Agents SDK's Runner: it answers from a script, one scripted response per
// model call, and records what each call was sent. Nothing is called over the network.
import {
  Usage,
  type AgentInputItem,
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from "@openai/agents-core";

export class ScriptedModel implements Model {
  /** The input of each call, as the Runner built it (history from the session included). */
  readonly requests: AgentInputItem[][] = [];
  #next = 0;

  constructor(private readonly script: AgentOutputItem[][]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(
      typeof request.input === "string"
        ? [{ role: "user", content: request.input }]
        : structuredClone(request.input),
    );
    const output = this.script[this.#next++];
    if (!output)
      throw new Error(
        `the script has ${this.script.length} responses; call ${this.#next} has none`,
      );
    return {
      output,
      responseId: `resp_${this.#next}`,
      usage: new Usage({
        requests: 1,
        inputTokens: 100 * this.#next,
        outputTokens: 10,
        totalTokens: 100 * this.#next + 10,
      }),
    };
  }

  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error("the scripted model answers only non-streamed runs");
  }
}

/** A scripted assistant message. */
export const say = (text: string): AgentOutputItem => ({
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text }],
});

/** A scripted function call. */
export const callTool = (
  name: string,
  args: object,
  callId: string,
): AgentOutputItem => ({
  type: "function_call",
  callId,
  name,
  status: "completed",
  arguments: JSON.stringify(args),
});
