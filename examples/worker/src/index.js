// A Durable Object chat agent whose conversation Arbor keeps in the object's own SQLite storage.
// One Durable Object per chat (`?chat=<name>`); POST { "text": "…" } appends a user message, and
// every request answers with the stored history.
import { DurableObject } from "cloudflare:workers";
import { Session } from "arbor-memory/session";
import { durableObjectSql } from "./durable-object-sql.js";

export class ChatAgent extends DurableObject {
  /**
   * @param {DurableObjectState} ctx
   * @param {Env} env
   */
  constructor(ctx, env) {
    super(ctx, env);
    // One store object per Durable Object: Arbor serialises appends per store identity.
    // Tables are created on first use, so there is nothing to set up here.
    this.session = Session.create(durableObjectSql(ctx.storage));
  }

  /** @param {Request} request */
  async fetch(request) {
    if (request.method === "POST") {
      const body = /** @type {{ text?: unknown }} */ (await request.json());
      if (typeof body.text !== "string" || body.text.trim() === "") {
        return Response.json(
          { error: 'Send { "text": "…" }' },
          { status: 400 },
        );
      }
      await this.session.appendMessage({
        id: crypto.randomUUID(),
        role: "user",
        parts: [{ type: "text", text: body.text }],
      });
    }
    const history = await this.session.getHistory();
    return Response.json({
      history: history.map((message) => ({
        id: message.id,
        role: message.role,
        text: message.parts
          .map((part) => (part.type === "text" ? part.text : ""))
          .join(""),
      })),
    });
  }
}

export default {
  /**
   * @param {Request} request
   * @param {Env} env
   */
  fetch(request, env) {
    const chat = new URL(request.url).searchParams.get("chat") ?? "default";
    return env.CHAT_AGENT.get(env.CHAT_AGENT.idFromName(chat)).fetch(request);
  },
};

/** @typedef {{ CHAT_AGENT: DurableObjectNamespace }} Env */
