// The SessionManager suite inside workerd: every case runs in its own Durable Object, where
// `SessionManager.create()` takes the object's SQLite (`ctx.storage.sql` as the `sql` tag, no
// `transaction()`: the shape of an Agents SDK `Agent`). The suite is bundled into the worker
// with rolldown and asserts with `node:assert` there (`assertExpect`); this file registers one
// vitest case per suite case and asks the worker to run it, so a failure reports its own name
// and message. A new Durable Object per case gives fresh storage (the isolation rule).
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runManagerConformance } from "../../src/testing/index.js";
import { bundleWorker } from "../providers/support/bundle-worker.js";

const FACTORY_NAME = "SessionManager inside workerd (Durable Object SQLite)";

const WORKER = `
import assert from "node:assert";
import { DurableObject } from "cloudflare:workers";
import { Session, SessionManager } from "arbor-memory/session";
import { assertExpect, runManagerConformance } from "arbor-memory/testing";

/** The suite's cases by full name ("describe > … > it"), registered with a collecting runner. */
function collectCases(factory) {
  const cases = new Map();
  const beforeAll = [];
  const path = [];
  const it = (name, body) => cases.set([...path, name].join(" > "), body);
  it.skip = () => {};
  runManagerConformance(factory, {
    describe(name, fn) { path.push(name); fn(); path.pop(); },
    it,
    expect: assertExpect(assert),
    beforeAll: (fn) => beforeAll.push(fn),
  });
  return { cases, beforeAll };
}

export class SuiteCase extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.storage = ctx.storage.sql;
  }

  sql(strings, ...values) {
    return [...this.storage.exec(strings.join("?"), ...values)];
  }

  /** Every row of every table Arbor created (the _cf_ tables are workerd's own, not readable). */
  dump() {
    const tables = this.sql\`SELECT name FROM sqlite_master WHERE type = 'table'\`
      .map((row) => row.name)
      .filter((name) => !name.startsWith("_cf_") && !name.startsWith("sqlite_"));
    return tables.flatMap((name) =>
      [...this.storage.exec(\`SELECT * FROM "\${name.replaceAll('"', '""')}"\`)].map((row) => ({ table: name, row })),
    );
  }

  async fetch(request) {
    const { name } = await request.json();
    const { cases, beforeAll } = collectCases({
      name: ${JSON.stringify(FACTORY_NAME)},
      create: () => ({
        manager: (options) => SessionManager.create(this, options),
        dump: () => this.dump(),
        sessionWithoutManager: (sessionId) => Session.create(this).forSession(sessionId),
      }),
    });
    const body = cases.get(name);
    if (!body) return Response.json({ ok: false, message: "no such case: " + name });
    try {
      for (const fn of beforeAll) await fn();
      await body();
      return Response.json({ ok: true });
    } catch (error) {
      return Response.json({ ok: false, message: String(error?.stack ?? error) });
    }
  }
}

export default {
  fetch(request, env) {
    const id = new URL(request.url).pathname.slice(1);
    return env.SUITE.get(env.SUITE.idFromName(id)).fetch(request);
  },
};
`;

let worker: Miniflare | undefined;

beforeAll(async () => {
  worker = new Miniflare({
    modules: true,
    script: await bundleWorker({ source: WORKER }),
    compatibilityDate: "2025-01-01",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { SUITE: { className: "SuiteCase", useSQLite: true } },
  });
  await worker.ready;
});
afterAll(() => worker?.dispose());

// The same suite, collected here for its case names only: Node registers them, workerd runs them.
const caseNames: string[] = [];
const skippedNames: string[] = [];
{
  const path: string[] = [];
  const collect = Object.assign(
    (name: string) => caseNames.push([...path, name].join(" > ")),
    { skip: (name: string) => skippedNames.push([...path, name].join(" > ")) },
  );
  runManagerConformance(
    { name: FACTORY_NAME, create: () => ({ manager: never, dump: never }) },
    {
      describe(name, fn) {
        path.push(name);
        fn();
        path.pop();
      },
      it: collect,
      expect: () => never(),
    },
  );
}

describe(`arbor manager conformance in workerd`, () => {
  it("collects the whole suite", () => {
    expect(caseNames.length).toBeGreaterThan(10);
  });
  for (const name of skippedNames) it.skip(name, () => {});
  for (const name of caseNames) {
    it(name, async () => {
      const response = await worker!.dispatchFetch(
        `http://suite/${crypto.randomUUID()}`,
        { method: "POST", body: JSON.stringify({ name }) },
      );
      const reply = (await response.json()) as {
        ok: boolean;
        message?: string;
      };
      if (!reply.ok) throw new Error(reply.message);
    });
  }
});

// --- Internal helpers ---

function never(): never {
  throw new Error("[manager workerd] the name collector runs no case");
}
