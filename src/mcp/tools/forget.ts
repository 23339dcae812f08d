import { openScopedSession } from "../scope.js";
import {
  listArgument,
  SESSION_ID_PROPERTY,
  stringArgument,
  type ToolDefinition,
} from "./tool.js";

export const forgetTool: ToolDefinition = {
  name: "forget",
  description:
    'Erase a whole session, or some of its messages, with everything derived from them (search index rows, summaries over them, attachments), and return the receipt. Irreversible. A sessionId is required: there is no "forget everything". Example: { "sessionId": "…", "messageIds": ["m7"] }.',
  inputSchema: {
    type: "object",
    properties: {
      sessionId: SESSION_ID_PROPERTY,
      messageIds: {
        type: "array",
        items: { type: "string", minLength: 1 },
        minItems: 1,
        maxItems: 1_000,
        description:
          "Erase only these messages (their children move up to the nearest kept ancestor); omit to erase the whole session",
      },
    },
    required: ["sessionId"],
    additionalProperties: false,
  },
  annotations: {
    title: "Forget (erase)",
    readOnlyHint: false,
    destructiveHint: true,
    // Erasing what is already gone removes nothing more.
    idempotentHint: true,
    openWorldHint: false,
  },
  run: async (scope, args) => {
    const sessionId = stringArgument(args, "sessionId")!;
    const messageIds = listArgument(args, "messageIds");
    await openScopedSession(scope, sessionId);
    const receipt = await scope.manager.erase(
      messageIds ? { sessionId, messageIds } : { sessionId },
    );
    const structured = {
      sessionId,
      ...(messageIds ? { messageIds } : {}),
      receipt,
    };
    const counts = Object.entries(receipt)
      .filter(([, value]) => typeof value === "number" && value > 0)
      .map(([key, value]) => `${key} ${value}`)
      .join(", ");
    const text = `Erased ${messageIds ? `${messageIds.length} message id(s) of` : "session"} ${sessionId} at ${receipt.erasedAt}: ${counts || "nothing was left to erase"}.${receipt.notCovered.length > 0 ? ` Not covered: ${receipt.notCovered.join(", ")}.` : ""}`;
    return { structured, text };
  },
};
