// Time and context over HTTP (docs/search.md): since/until, now and timeZone, context and match
// on both search routes, the results' createdAt, sessionName, inQueryTime and context in the
// schema /openapi.json publishes, and 400 for bad values. Requests go through app.request.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";

const TURNS: Array<[string, string | null, string, string, string]> = [
  ["d1", null, "2023-04-10T09:00:00.000Z", "user", "Caroline went hiking"],
  [
    "d2",
    "d1",
    "2023-05-06T23:30:00.000Z",
    "user",
    "Caroline went to the parade",
  ],
  [
    "d3",
    "d2",
    "2023-05-20T12:00:00.000Z",
    "assistant",
    "Caroline sounds happy",
  ],
  ["d4", "d3", "2023-06-02T08:00:00.000Z", "user", "Caroline painted a lake"],
];

async function seeded() {
  const manager = SessionManager.inMemory();
  const { id } = await manager.create("spring diary");
  const session = manager.getSession(id);
  for (const [messageId, parentId, createdAt, role, text] of TURNS)
    await session.importMessage(
      { id: messageId, role, parts: [{ type: "text", text }] },
      { parentId, createdAt },
    );
  const app = createApp({ manager });
  const get = async (path: string) => {
    const response = await app.request(path);
    return { status: response.status, body: (await response.json()) as any };
  };
  return { id, get };
}

describe("search with time and context over HTTP", () => {
  it("ranks the time named in q first, relative to now, and returns neighbours", async () => {
    const { id, get } = await seeded();
    const q = encodeURIComponent("Caroline last week");
    const answer = await get(
      `/v1/search?q=${q}&now=2023-06-07T10:00:00Z&context=1`,
    );
    expect(answer.status).toBe(200);
    const [first, ...rest] = answer.body.results;
    expect(first).toMatchObject({
      id: "d4",
      sessionId: id,
      sessionName: "spring diary",
      createdAt: "2023-06-02T08:00:00.000Z",
      inQueryTime: true,
      context: {
        before: [
          {
            id: "d3",
            role: "assistant",
            createdAt: "2023-05-20T12:00:00.000Z",
            text: "Caroline sounds happy",
          },
        ],
        after: [],
      },
    });
    expect(rest.map((hit: any) => hit.id).sort()).toEqual(["d1", "d2", "d3"]);
    const inSession = await get(
      `/v1/sessions/${id}/search?q=${encodeURIComponent("Caroline on 7 May 2023")}&timeZone=Europe/Lisbon&context=2`,
    );
    expect(inSession.body.results[0]).toMatchObject({
      id: "d2",
      inQueryTime: true,
    });
    expect(
      inSession.body.results[0].context.after.map((turn: any) => turn.id),
    ).toEqual(["d3", "d4"]);
  });

  it("filters by since and until on both routes", async () => {
    const { id, get } = await seeded();
    for (const path of [
      "/v1/search?q=Caroline&since=2023-05-01&until=2023-06-01",
      `/v1/sessions/${id}/search?q=Caroline&since=2023-05-01&until=2023-06-01`,
    ]) {
      const answer = await get(path);
      expect(answer.status).toBe(200);
      expect(answer.body.results.map((hit: any) => hit.id).sort()).toEqual([
        "d2",
        "d3",
      ]);
    }
  });

  it("answers 400 for a bad date, zone or context", async () => {
    const { id, get } = await seeded();
    for (const path of [
      "/v1/search?q=Caroline&since=someday",
      "/v1/search?q=Caroline&now=someday",
      "/v1/search?q=Caroline&timeZone=Mars/Olympus",
      "/v1/search?q=Caroline&context=11",
      `/v1/sessions/${id}/search?q=Caroline&context=-1`,
      `/v1/sessions/${id}/search?q=Caroline&match=some`,
    ]) {
      const answer = await get(path);
      expect([path, answer.status]).toEqual([path, 400]);
      expect(typeof answer.body.error.code).toBe("string");
    }
  });

  it("publishes the parameters and result fields in /openapi.json", async () => {
    const { get } = await seeded();
    const spec = (await get("/openapi.json")).body;
    const names = (path: string) =>
      spec.paths[path].get.parameters.map((p: any) => p.name);
    for (const path of ["/v1/search", "/v1/sessions/{id}/search"])
      expect(names(path)).toEqual(
        expect.arrayContaining([
          "match",
          "since",
          "until",
          "now",
          "timeZone",
          "context",
        ]),
      );
    const result = spec.components.schemas.SearchResult.properties;
    expect(Object.keys(result)).toEqual(
      expect.arrayContaining([
        "createdAt",
        "sessionName",
        "inQueryTime",
        "context",
      ]),
    );
  });
});
