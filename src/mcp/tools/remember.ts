import type { SessionMessage } from "../../session/index.js";
import { appendNote, notesSessionId } from "../notes-session.js";
import { openScopedSession } from "../scope.js";
import {
  SESSION_ID_PROPERTY,
  stringArgument,
  type ToolDefinition,
} from "./tool.js";

const NAME = "remember";

export const rememberTool: ToolDefinition = {
  name: NAME,
  description:
    'Write a note into memory so any later search_memory finds it. Without sessionId it goes to the notes session ("arbor-notes", or "arbor-notes-<owner>" for an owner), created on first use. Example: { "text": "Decided: launch budget capped at $40k, Ada owns it." }.',
  inputSchema: {
    type: "object",
    properties: {
      text: {
        type: "string",
        description: "The note",
        minLength: 1,
        maxLength: 50_000,
      },
      sessionId: {
        ...SESSION_ID_PROPERTY,
        description: "Append to this session instead (after its active leaf)",
      },
      role: {
        type: "string",
        enum: ["user", "assistant", "system"],
        description: 'Who the note is from; default "user"',
      },
    },
    required: ["text"],
    additionalProperties: false,
  },
  annotations: {
    title: "Remember a note",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  run: async (scope, args) => {
    const text = stringArgument(args, "text")!;
    const sessionId = stringArgument(args, "sessionId");
    const note: SessionMessage = {
      id: crypto.randomUUID(),
      role: stringArgument(args, "role") ?? "user",
      parts: [{ type: "text", text }],
      createdAt: new Date(),
    };
    let target: string;
    if (sessionId) {
      const { session } = await openScopedSession(scope, sessionId);
      await session.appendMessage(note);
      target = sessionId;
    } else {
      await appendNote(scope.manager, scope.ownerId, note);
      target = notesSessionId(scope.ownerId);
    }
    const structured = {
      sessionId: target,
      messageId: note.id,
      createdAt: note.createdAt!.toISOString(),
    };
    return {
      structured,
      text: `Remembered in ${target} as message ${note.id}.`,
    };
  },
};
