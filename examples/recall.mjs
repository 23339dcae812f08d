// Hybrid, branch-aware recall (docs/search.md) on a SQLite file. With an OpenAI-compatible
// embedding endpoint it uses a real model:
//
//   ARBOR_BASE_URL=http://localhost:11434/v1 ARBOR_EMBEDDING_MODEL=nomic-embed-text node examples/recall.mjs
//
// Without ARBOR_EMBEDDING_MODEL it falls back to the fake deterministic embedder of
// arbor-memory/testing (a bag of words with a few synonyms), so it runs anywhere.
// Run after a build (`npm run build`). Safe to run again: appends are idempotent by id.
import { embeddingModelFromEnv } from "arbor-memory/agent";
import { SessionManager } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";
import { fakeEmbedder } from "arbor-memory/testing";

const db = openSqlite(process.env.ARBOR_DB ?? "./arbor-recall.db");
const model = await embeddingModelFromEnv();
const manager = SessionManager.create(db).withEmbeddings(
  model ?? fakeEmbedder(),
  { model: model ? process.env.ARBOR_EMBEDDING_MODEL : "fake-512" },
);

const text = (value) => [{ type: "text", text: value }];
const [existing] = await manager.list({ limit: 1 });
const { id } = existing ?? (await manager.create("release planning"));
const session = manager.getSession(id);
await session.appendMessage({
  id: "u1",
  role: "user",
  parts: text("When do we ship?"),
});
await session.appendMessage({
  id: "a1",
  role: "assistant",
  parts: text("We ship on Friday."),
});
// A dropped idea: a sibling of a1, left on an abandoned branch.
await session.appendMessage(
  { id: "a2", role: "assistant", parts: text("Or we launch next month.") },
  "u1",
);
await session.switchBranch("a1");
await session.flushEmbeddings(); // only scripts wait; appends never do

for (const options of [
  { mode: "text" },
  { mode: "semantic" },
  { mode: "hybrid" },
  { mode: "hybrid", scope: "branch" },
]) {
  const hits = await session.search("deployment date", options);
  console.log(JSON.stringify(options));
  for (const hit of hits)
    console.log(
      `  ${hit.id} score=${hit.score.toFixed(4)} text=${hit.matched.text} semantic=${hit.matched.semantic} active=${hit.onActiveBranch}  ${hit.snippet}`,
    );
}
db.close();
