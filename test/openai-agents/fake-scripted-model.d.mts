// Types of fake-scripted-model.mjs.
import type {
  AgentInputItem,
  AgentOutputItem,
  Model,
  ModelRequest,
  ModelResponse,
  StreamEvent,
} from "@openai/agents-core";

export declare class ScriptedModel implements Model {
  /** The input of each call, as the Runner built it (history from the session included). */
  readonly requests: AgentInputItem[][];
  constructor(script: AgentOutputItem[][]);
  getResponse(request: ModelRequest): Promise<ModelResponse>;
  getStreamedResponse(): AsyncIterable<StreamEvent>;
}

/** A scripted assistant message. */
export declare const say: (text: string) => AgentOutputItem;

/** A scripted function call. */
export declare const callTool: (
  name: string,
  args: object,
  callId: string,
) => AgentOutputItem;
