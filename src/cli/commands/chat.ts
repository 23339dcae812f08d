import { ArborError } from "../../session/index.js";
import { STORE_OPTIONS, stringOption, type CommandSpec } from "../args.js";
import { chatLoop } from "../chat/chat-loop.js";
import { requireSession, withStore } from "../session-data.js";

/** `arbor chat`: a terminal chat over a session with an OpenAI-compatible model. */
export const chatCommand: CommandSpec = {
  name: "chat",
  summary:
    "Chat in the terminal with an OpenAI-compatible model; turns are stored in the session.",
  usage: "[session] [--name <name>]",
  positionals: { min: 0, max: 1 },
  details: `The model comes from ARBOR_BASE_URL and ARBOR_MODEL (ARBOR_API_KEY, ARBOR_SUMMARY_MODEL
optional), e.g. ARBOR_BASE_URL=http://localhost:11434/v1 ARBOR_MODEL=llama3.2 for Ollama.
Without a session id a new session is created. Type /help in the chat for the slash commands:
/regenerate, /edit <text>, /branches, /switch <id>, /compact, /memory, /search <q>, /exit.`,
  options: {
    name: {
      type: "string",
      value: "name",
      description: "name of the new session (without an id)",
    },
    ...STORE_OPTIONS,
  },
  run: (command) =>
    withStore(
      command,
      async ({ manager, models }) => {
        if (!models) {
          throw new ArborError(
            "INVALID_ARGUMENT",
            "arbor chat needs a model: set ARBOR_BASE_URL and ARBOR_MODEL (e.g. http://localhost:11434/v1 and llama3.2)",
          );
        }
        const { SessionAgent } = await import("../../agent/index.js");
        const given = command.positionals[0];
        const info = given
          ? await requireSession(manager, given)
          : await manager.create(
              stringOption(command, "name") ?? `Chat ${timestamp()}`,
              { source: "arbor chat", model: models.settings.model },
            );
        const agent = new SessionAgent({
          manager,
          sessionId: info.id,
          model: models.model,
        });
        await chatLoop({
          manager,
          info,
          agent,
          modelName: models.settings.model,
        });
      },
      { withModels: true },
    ),
};

// --- Internal helpers ---

/** `2026-12-01 09:30`, the default name of a new chat. */
function timestamp(): string {
  return new Date().toISOString().slice(0, 16).replace("T", " ");
}
