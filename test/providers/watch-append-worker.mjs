// A separate process appending to one session of a SQLite file, for the cross-process change-feed
// test in watch-sqlite-cross-process.int.test.ts. It runs Arbor's sources, transpiled by the test
// into <modules>. Prints "<id> <epoch ms>" once each append has committed. Usage:
//   node watch-append-worker.mjs <modules> <database file> <session id> <writer name> <count>
const [modules, file, sessionId, writer, count] = process.argv.slice(2);
const { openSqlite } = await import(`${modules}/sqlite/open-sqlite.js`);
const { AgentSessionProvider } = await import(
  `${modules}/backends/sql/index.js`
);

const database = openSqlite(file);
const provider = new AgentSessionProvider(database, sessionId);
for (let index = 0; index < Number(count); index++) {
  const id = `${writer}-${index}`;
  provider.appendMessage({
    id,
    role: "user",
    parts: [{ type: "text", text: `${writer} message ${index}` }],
  });
  process.stdout.write(`${id} ${Date.now()}\n`);
  await new Promise((resolve) => setTimeout(resolve, 15));
}
database.close();
