// The two Durable Objects bench/agents-032.mjs runs side by side in one workerd: ArborBench keeps
// its messages with Arbor (`arbor-memory/session`, from the built dist/) in the object's SQLite,
// AgentsBench with agents@0.32.0's public `agents/sessions` API (a black box, from
// reference/agents-0.32/node_modules). Both classes answer the same requests, each doing one whole
// step of a workload inside the object and answering with counts only, so the Node side can time
// the request. They are separate classes (and objects) because agents@0.32 lifts `assistant_*`
// tables it finds in its object: sharing one database would benchmark that migration.
import { DurableObject } from "cloudflare:workers";
import { Session } from "arbor-memory/session";
import { Lifecycle } from "agents/lifecycle";
import { Sessions } from "agents/sessions";
import { durableObjectSql } from "../examples/worker/src/durable-object-sql.js";
import { message, sparseMessage } from "./workload.mjs";

const VOCABULARIES = { dense: message, sparse: sparseMessage };

/**
 * Runs one step. `design` adapts the two APIs: `open()` makes a new handle over the object's
 * storage (nothing cached), `session` is the object's long-lived one.
 */
async function step(design, url) {
  const query = url.searchParams;
  const number = (name) => Number(query.get(name));
  // `repeat` runs the step that many times in one request, so the Node side can divide.
  const times = number("repeat") || 1;
  const repeat = async (once) => {
    let result;
    for (let r = 0; r < times; r++) result = await once();
    return result;
  };
  switch (url.pathname) {
    case "/noop":
      return {};
    case "/append": {
      const make = VOCABULARIES[query.get("vocabulary") ?? "dense"];
      const end = number("from") + number("count");
      for (let i = number("from"); i < end; i++)
        await design.session.appendMessage(make(i));
      return { appended: end - number("from") };
    }
    case "/history":
      return repeat(async () => ({
        length: (await design.session.getHistory()).length,
      }));
    case "/bare-history": {
      // No library: one SELECT of the object's stored texts in `seq` order, the array's brackets
      // written by SQLite, one JSON.parse. The floor of any design that keeps a message per row
      // and returns them parsed (on ArborBench's table; see the restart rows).
      const [row] = [
        ...design.ctx.storage.sql.exec(
          "SELECT '[' || group_concat(content, ',') || ']' AS texts FROM (SELECT content FROM assistant_messages ORDER BY seq)",
        ),
      ];
      return { length: JSON.parse(row.texts).length };
    }
    case "/history-fresh":
      return repeat(async () => ({
        length: (await (await design.open()).getHistory()).length,
      }));
    case "/search":
      return repeat(async () => ({
        hits: (
          await design.session.search(query.get("q"), {
            limit: number("limit"),
          })
        ).length,
      }));
    case "/update": {
      // A new text each time: agents@0.32 writes nothing for an unchanged message.
      const base = message(number("i"));
      for (let r = 0; r < times; r++) {
        const text = `${base.parts[0].text} edited ${query.get("n")}.${r}`;
        await design.session.updateMessage({
          ...base,
          parts: [{ type: "text", text }],
        });
      }
      return {};
    }
    case "/append-all": {
      if (typeof design.session.appendAll !== "function")
        return { missing: true };
      const count = number("count");
      const inserted = await design.session.appendAll(
        Array.from({ length: count }, (_, i) => message(i)),
      );
      return { appended: inserted };
    }
    default:
      throw new Error(`unknown step ${url.pathname}`);
  }
}

async function answer(design, request) {
  try {
    return Response.json(await step(design, new URL(request.url)));
  } catch (error) {
    return Response.json(
      { error: String((error && error.stack) || error) },
      { status: 500 },
    );
  }
}

/** Arbor in a SQLite-backed Durable Object, over `ctx.storage` as examples/worker does. */
export class ArborBench extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.session = Session.create(durableObjectSql(ctx.storage));
    this.open = async () => Session.create(durableObjectSql(ctx.storage));
  }

  fetch(request) {
    return answer(this, request);
  }
}

/** agents@0.32.0 in a SQLite-backed Durable Object, installed as its docs/sessions.md shows. */
export class AgentsBench extends DurableObject {
  sessions = new Sessions();
  lifecycle = Lifecycle.install(this).use(this.sessions);
  session = this.sessions.session();

  /** A new capability on a new (handler-less) lifecycle over the same object: no warm caches. */
  async open() {
    const sessions = new Sessions();
    const lifecycle = new Lifecycle(this).use(sessions);
    await lifecycle.start();
    return sessions.session();
  }

  onRequest(request) {
    return answer(this, request);
  }
}

export default {
  fetch(request, env) {
    const url = new URL(request.url);
    const namespace = env[url.searchParams.get("design")];
    return namespace
      .get(namespace.idFromName(url.searchParams.get("object")))
      .fetch(request);
  },
};
