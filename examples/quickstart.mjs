// The main job on the embedded SQLite default: store a branched conversation in ./arbor.db,
// then read back the active history, the other branch and a search result.
// Run with `npm run quickstart` (it builds first). Safe to run again: appends are idempotent by id.
import { Session } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";

const file = process.env.ARBOR_DB ?? "./arbor.db";
const db = openSqlite(file);
const session = Session.create(db).forSession("quickstart");

const text = (value) => [{ type: "text", text: value }];

await session.appendMessage({
  id: "u1",
  role: "user",
  parts: text("When is the production deployment?"),
});
await session.appendMessage({
  id: "a1",
  role: "assistant",
  parts: text("The deployment to production is on Friday."),
});
await session.appendMessage({
  id: "u2",
  role: "user",
  parts: text("Can we move it to Thursday?"),
});
await session.appendMessage({
  id: "a2",
  role: "assistant",
  parts: text("Thursday works, I will tell the team."),
});
// Regenerate the last answer: a sibling under u2. The first answer stays reachable.
await session.appendMessage(
  {
    id: "a2-regenerated",
    role: "assistant",
    parts: text("Thursday is possible if QA signs off by Wednesday."),
  },
  "u2",
);
await session.appendMessage({
  id: "u3",
  role: "user",
  parts: text("本番環境へのデプロイは金曜日ですか？"),
});

const show = (messages) =>
  messages
    .map(
      (message) =>
        `  [${message.role}] ${message.parts.map((part) => part.text).join(" ")}`,
    )
    .join("\n");

console.log(`Database: ${file}\n`);
console.log("Active history:");
console.log(show(await session.getHistory()));

const branches = await session.getBranches("u2");
console.log(`\nAnswers to u2 (${branches.length} branches, oldest first):`);
console.log(show(branches));
console.log("\nThe other branch, read back whole:");
console.log(show(await session.getHistory("a2")));

for (const query of ["friday deployment", "金曜日"]) {
  const hits = await session.search(query);
  console.log(`\nSearch "${query}": ${hits.length} hit(s)`);
  for (const hit of hits)
    console.log(`  ${hit.id} [${hit.role}] ${hit.content}`);
}

db.close();
