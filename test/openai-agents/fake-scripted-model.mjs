// A fake model for the Agents SDK's Runner: it answers from a script, one scripted response per
// model call, and records what each call was sent. Nothing is called over the network. Plain
// JavaScript (types in fake-scripted-model.d.mts) so that a child process run by `node` against
// the built package can import it too (runner-restart.test.ts).
import { Usage } from "@openai/agents-core";

export class ScriptedModel {
  /** The input of each call, as the Runner built it (history from the session included). */
  requests = [];
  #script;
  #next = 0;

  constructor(script) {
    this.#script = script;
  }

  async getResponse(request) {
    this.requests.push(
      typeof request.input === "string"
        ? [{ role: "user", content: request.input }]
        : structuredClone(request.input),
    );
    const output = this.#script[this.#next++];
    if (!output)
      throw new Error(
        `the script has ${this.#script.length} responses; call ${this.#next} has none`,
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

  // eslint-disable-next-line require-yield
  async *getStreamedResponse() {
    throw new Error("the scripted model answers only non-streamed runs");
  }
}

/** A scripted assistant message. */
export const say = (text) => ({
  type: "message",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text }],
});

/** A scripted function call. */
export const callTool = (name, args, callId) => ({
  type: "function_call",
  callId,
  name,
  status: "completed",
  arguments: JSON.stringify(args),
});
