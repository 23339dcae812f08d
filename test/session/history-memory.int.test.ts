// Streamed history keeps memory bounded by a window, not by the path (docs/behavior/history.md):
// streaming a 100,000-message path of ~2 KB messages from a SQLite file must grow the heap far
// less than getHistory(), which holds the whole path at once. Heap growth is measured from a
// collected baseline (gc exposed at run time), sampled during the iteration.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredMessageRecord } from "../../src/session/contracts/provider.js";
import { AgentSessionProvider } from "../../src/backends/sql/index.js";
import { Session } from "../../src/session/facade/session.js";
import { openSqlite, type SqliteHandle } from "../../src/sqlite/open-sqlite.js";

const PATH_LENGTH = 100_000;
const IMPORT_CHUNK = 5_000;
const FILLER = "lorem ipsum dolor sit amet, ".repeat(72); // ~2 KB of text per message

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

let folder = "";
let database: SqliteHandle;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "arbor-history-memory-"));
  database = openSqlite(join(folder, "history.db"));
  const provider = new AgentSessionProvider(database, "long");
  const createdAt = new Date().toISOString();
  for (let start = 0; start < PATH_LENGTH; start += IMPORT_CHUNK) {
    const messages: StoredMessageRecord[] = [];
    for (let index = start; index < start + IMPORT_CHUNK; index++) {
      messages.push({
        message: {
          id: `m${index}`,
          role: index % 2 === 0 ? "user" : "assistant",
          parts: [{ type: "text", text: `${index} ${FILLER}` }],
        },
        parentId: index === 0 ? null : `m${index - 1}`,
        createdAt,
      });
    }
    provider.importRecords({ messages, compactions: [] });
  }
}, 120_000);

afterAll(() => {
  database?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe("session.history() on a 100,000-message SQLite path", () => {
  it("grows the heap far less than getHistory()", async () => {
    const session = Session.create(database).forSession("long");
    await session.getPathLength(); // initialize outside the measurements

    collectGarbage();
    let baseline = process.memoryUsage().heapUsed;
    let streamedPeak = 0;
    let count = 0;
    let lastId = "";
    for await (const message of session.history()) {
      if (count === 0) expect(message.id).toBe("m0");
      lastId = message.id;
      if (++count % 50 === 0) {
        streamedPeak = Math.max(
          streamedPeak,
          process.memoryUsage().heapUsed - baseline,
        );
      }
    }
    expect(count).toBe(PATH_LENGTH);
    expect(lastId).toBe(`m${PATH_LENGTH - 1}`);

    collectGarbage();
    baseline = process.memoryUsage().heapUsed;
    const history = await session.getHistory();
    const wholePeak = process.memoryUsage().heapUsed - baseline;
    expect(history).toHaveLength(PATH_LENGTH);

    expect(streamedPeak).toBeLessThan(wholePeak / 4);
  }, 120_000);
});
