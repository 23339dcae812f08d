// A separate process appending to one session through the built package (`arbor-memory/session`), for
// the cross-process race test in postgres-races.int.test.ts. Usage:
//   node postgres-append-worker.mjs <database url> <session id> <writer name> <count>
import pg from "pg";
import { PostgresSessionProvider } from "arbor-memory/session";

const [url, sessionId, writer, count] = process.argv.slice(2);
const client = new pg.Client({ connectionString: url });
await client.connect();
const provider = new PostgresSessionProvider(client, sessionId);
for (let index = 0; index < Number(count); index++) {
  await provider.appendMessage({
    id: `${writer}-${index}`,
    role: "user",
    parts: [{ type: "text", text: `${writer} message ${index}` }],
  });
}
await client.end();
