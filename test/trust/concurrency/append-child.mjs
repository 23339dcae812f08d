// One of the processes of test/trust/concurrency.int.test.ts: appends <count> messages to one
// session of a SQLite file through a SessionManager, each under the latest leaf, as fast as it
// can, and prints each id once its append has returned. Any error (SQLITE_BUSY included) goes to
// stderr with exit code 1. Usage:
//   node append-child.mjs <modules> <database file> <session id> <writer> <count>
const [modules, file, sessionId, writer, count] = process.argv.slice(2);
const { openSqlite } = await import(`${modules}/sqlite/open-sqlite.js`);
const { SessionManager } = await import(`${modules}/session/index.js`);

const database = openSqlite(file);
const manager = SessionManager.create(database);
try {
  for (let index = 0; index < Number(count); index++) {
    const id = `${writer}-${index}`;
    await manager.append(sessionId, {
      id,
      role: index % 2 ? "user" : "assistant",
      parts: [{ type: "text", text: `text${writer}x${index}end` }],
    });
    process.stdout.write(`${id}\n`);
  }
} catch (error) {
  process.stderr.write(String(error?.stack ?? error));
  process.exitCode = 1;
} finally {
  database.close();
}
