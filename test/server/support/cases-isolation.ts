// Tenant isolation, enumerated from the generated OpenAPI document: every path and method with an
// id parameter, called with tenant B's key and tenant A's ids, answers exactly what it answers for
// ids that do not exist (status and body, the id itself aside), and A's data is unchanged.
import { expect, it } from "vitest";
import { createApp } from "../../../src/server/index.js";
import type { SessionManager } from "../../../src/session/index.js";
import type { WithStore } from "./api-suite.js";
import { client, type Call } from "./client.js";
import { fill, SAMPLES, seedSession, type Seeded } from "./samples.js";

export function isolationCases(withStore: WithStore): void {
  it(
    "answers another tenant's ids exactly like missing ids, on every id route of /openapi.json",
    { timeout: 120_000 },
    () =>
      withStore(async (store) => {
        const keys = store.keys();
        const a = await keys.create("tenant-a");
        const b = await keys.create("tenant-b");
        const manager = store
          .manager()
          .withContext("memory", { maxTokens: 500 })
          .withCachedPrompt();
        const app = createApp({ manager, auth: keys });
        const callA = client(app, a.key);
        const callB = client(app, b.key);
        const seededA = await seedSession(callA, "A", "A-");
        const seededB = await seedSession(callB, "B", "B-");
        const before = await stateOf(manager, seededA.id);

        const document = (await callB("GET", "/openapi.json")).body;
        const operations = Object.entries(
          document.paths as Record<string, object>,
        ).flatMap(([path, methods]) =>
          Object.keys(methods).map((method) => ({
            path,
            method: method.toUpperCase(),
          })),
        );
        const withIds = operations.filter(({ path }) => path.includes("{"));
        expect(withIds.length).toBeGreaterThanOrEqual(28);

        const missing: Seeded = {
          id: crypto.randomUUID(),
          messageId: `m-${crypto.randomUUID()}`,
          label: "memory",
          compactionId: crypto.randomUUID(),
        };
        const compared: string[] = [];
        for (const { path, method } of withIds) {
          // A's session (and A's ids inside it) against a session that does not exist.
          await expectSameAnswer(callB, method, path, seededA, missing);
          compared.push(`${method} ${path}`);
          // B's own session with A's inner ids against ids that do not exist (labels are names).
          const inner = path.replace("/v1/sessions/{id}", "");
          if (/\{(messageId|compactionId)\}/.test(inner)) {
            await expectSameAnswer(
              callB,
              method,
              path,
              { ...seededA, id: seededB.id },
              { ...missing, id: seededB.id },
            );
          }
        }
        expect(compared).toContain("DELETE /v1/sessions/{id}");
        expect(compared).toContain("GET /v1/sessions/{id}/events");

        // The one id taken by a query: cross-session search filtered by A's session id.
        const searched = await callB(
          "GET",
          `/v1/search?q=hello&sessionId=${seededA.id}`,
        );
        const searchedMissing = await callB(
          "GET",
          `/v1/search?q=hello&sessionId=${missing.id}`,
        );
        expect([searched.status, searched.body]).toEqual([
          searchedMissing.status,
          searchedMissing.body,
        ]);
        expect(searched.body.results).toEqual([]);

        expect(await stateOf(manager, seededA.id)).toEqual(before);
        expect((await callA("GET", `/v1/sessions/${seededA.id}`)).status).toBe(
          200,
        );
      }),
  );
}

async function expectSameAnswer(
  call: Call,
  method: string,
  template: string,
  foreign: Seeded,
  absent: Seeded,
): Promise<void> {
  const sample = SAMPLES[`${method} ${template}`] ?? {};
  const send = async (ids: Seeded) => {
    const path = fill(template, ids) + (sample.query ? `?${sample.query}` : "");
    const answer = await call(method, path, {
      ...(sample.json !== undefined ? { json: sample.json } : {}),
    });
    let text = answer.text;
    for (const [name, value] of Object.entries(ids))
      if (name !== "label") text = text.replaceAll(value, `<${name}>`);
    return { status: answer.status, text };
  };
  const foreignAnswer = await send(foreign);
  const absentAnswer = await send(absent);
  expect(foreignAnswer, `${method} ${template}`).toEqual(absentAnswer);
  expect(foreignAnswer.status, `${method} ${template}`).toBeGreaterThanOrEqual(
    400,
  );
}

/** Everything of A's session an API call could change. */
async function stateOf(manager: SessionManager, id: string) {
  const session = manager.getSession(id);
  // Frozen first: freezing persists the prompt, which the snapshot then holds either way.
  const prompt = await session.freezeSystemPrompt();
  const { exportedAt: _, ...snapshot } = await manager.exportSession(id);
  return {
    prompt,
    snapshot,
    info: await manager.get(id),
    blocks: await session.getContextBlockHistory("memory"),
  };
}
