// The idempotency fault run of `npm run bench:server` (bench/server-load.mjs runs it after its
// fault runs; `node bench/server-idempotency-faults.mjs` runs it alone, after `npm run build`):
// two `arbor serve` processes over one new PostgreSQL database, and for each write route
// `AT_ONCE` requests with one `Idempotency-Key` sent at once, split over both; then a request
// whose connection is cut once its body is sent (the answer is dropped), retried on the other
// process with its key, and an import cut and retried without one; then `AT_ONCE` imports of one
// file at once without a key. Each check counts what the database holds afterwards: one effect
// per key or per file, and one answer (status and body) for every request with one key. Exits
// non-zero when a check fails. test/server/idempotency-processes.int.test.ts runs these checks in
// CI, beside the API suite's (test/server/support/cases-idempotency-races.ts).
import http from "node:http";
import { pathToFileURL } from "node:url";
import { applyPostgresSchema } from "arbor-memory/session";
import { throwawayDatabase } from "./standalone.mjs";

const AT_ONCE = 10;

/** An OpenAI message array: no conversation id, known by its content. */
function chatFile(words) {
  return JSON.stringify([
    { role: "user", content: `Tell me about ${words}.` },
    { role: "assistant", content: `Here is what I know about ${words}.` },
  ]);
}

/**
 * Runs every check against two fresh servers; `serve(args)` starts `arbor serve` and answers
 * `{ url, child, alive }`, `stopAll(servers)` stops them. Answers `[{ name, ok, detail }]`.
 */
export async function idempotencyFaults({ pg, serve, stopAll }) {
  const database = await throwawayDatabase(pg, "arbor_bench_idempotency");
  await applyPostgresSchema(database.pool);
  const servers = [
    await serve(["--postgres", database.url]),
    await serve(["--postgres", database.url]),
  ];
  const checks = [];
  const check = (name, ok, detail) => checks.push({ name, ok, detail });
  try {
    const [a, b] = servers.map((server) => server.url);
    const { id } = (await send(a, "POST", "/v1/sessions", { name: "Source" }))
      .body;
    for (let index = 1; index <= 4; index++)
      await send(a, "POST", `/v1/sessions/${id}/messages`, {
        message: {
          id: `m${index}`,
          role: "user",
          parts: [{ type: "text", text: `message ${index}` }],
        },
      });
    const count = async () => ({
      sessions: Number(
        (
          await database.pool.query(
            "SELECT COUNT(*) AS n FROM assistant_sessions",
          )
        ).rows[0].n,
      ),
      messages: (await send(a, "GET", `/v1/sessions/${id}/tree`)).body.nodes
        .length,
      compactions: (await send(a, "GET", `/v1/sessions/${id}/compactions`)).body
        .compactions.length,
    });

    // 1. One key, AT_ONCE requests at once over both processes, per route.
    const routes = [
      ["create", "POST", "/v1/sessions", { name: "Once" }, "sessions"],
      [
        "append",
        "POST",
        `/v1/sessions/${id}/messages`,
        { message: { role: "user", parts: [{ type: "text", text: "Hi" }] } },
        "messages",
      ],
      [
        "import",
        "POST",
        "/v1/import?format=openai&fileName=chat.json",
        chatFile("trains"),
        "sessions",
      ],
      [
        "fork",
        "POST",
        `/v1/sessions/${id}/fork`,
        { messageId: "m2" },
        "sessions",
      ],
      [
        "overlay",
        "POST",
        `/v1/sessions/${id}/compactions`,
        { summary: "One and two", fromMessageId: "m1", toMessageId: "m2" },
        "compactions",
      ],
    ];
    for (const [name, method, path, body, counted] of routes) {
      const before = await count();
      const answers = await Promise.all(
        Array.from({ length: AT_ONCE }, (_, index) =>
          send(index % 2 ? b : a, method, path, body, {
            "Idempotency-Key": `at-once-${name}`,
          }),
        ),
      );
      const after = await count();
      const same = answers.every(
        (answer) =>
          answer.status === answers[0].status &&
          JSON.stringify(answer.body) === JSON.stringify(answers[0].body),
      );
      const effect = after[counted] - before[counted];
      check(
        `${AT_ONCE} at once with one key: ${name}`,
        same && effect === 1 && answers[0].status < 300,
        `${effect} ${counted} written, statuses ${[...new Set(answers.map((x) => x.status))].join("/")}, answers ${same ? "identical" : "differ"}`,
      );
    }

    // 2. The answer dropped (the connection cut once the body is sent), then the retry.
    for (const [name, method, path, body, counted, key] of [
      [
        "import with a key",
        "POST",
        "/v1/import?format=openai&fileName=cut.json",
        chatFile("boats"),
        "sessions",
        "cut-import",
      ],
      [
        "import without a key",
        "POST",
        "/v1/import?format=openai&fileName=cut-keyless.json",
        chatFile("bridges"),
        "sessions",
        null,
      ],
      [
        "fork with a key",
        "POST",
        `/v1/sessions/${id}/fork`,
        { messageId: "m3", name: "Cut fork" },
        "sessions",
        "cut-fork",
      ],
      [
        "overlay with a key",
        "POST",
        `/v1/sessions/${id}/compactions`,
        { summary: "Three and four", fromMessageId: "m3", toMessageId: "m4" },
        "compactions",
        "cut-overlay",
      ],
    ]) {
      const before = await count();
      const headers = key ? { "Idempotency-Key": key } : {};
      await cut(a, method, path, body, headers);
      const retry = await send(b, method, path, body, headers);
      const again = await send(a, method, path, body, headers);
      const after = await count();
      const effect = after[counted] - before[counted];
      const replayed = key
        ? JSON.stringify(retry.body) === JSON.stringify(again.body) &&
          retry.status < 300
        : retry.status < 300;
      check(
        `answer dropped, retried: ${name}`,
        effect === 1 && replayed,
        `${effect} ${counted} written; retry ${retry.status}${retry.replayed ? " replayed" : ""}, again ${again.status}`,
      );
    }

    // 3. One file imported AT_ONCE times at once without a key.
    const before = await count();
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, index) =>
        send(
          index % 2 ? b : a,
          "POST",
          "/v1/import?format=openai&fileName=keyless.json",
          chatFile("gardens"),
        ),
      ),
    );
    const effect = (await count()).sessions - before.sessions;
    check(
      `${AT_ONCE} imports of one file at once without a key`,
      effect === 1 && answers.every((answer) => answer.status < 300),
      `${effect} sessions written, statuses ${answers.map((x) => x.status).join(" ")}`,
    );
  } finally {
    await stopAll(servers);
    await database.drop();
  }
  return checks;
}

/** Prints the checks; answers whether all passed. */
export function reportIdempotency(checks) {
  console.log(
    "\nIdempotency under races and dropped answers (2 processes, PostgreSQL):",
  );
  for (const { name, ok, detail } of checks)
    console.log(`  ${ok ? "ok  " : "FAIL"} ${name}: ${detail}`);
  return checks.every((entry) => entry.ok);
}

// --- HTTP ---

function request(base, method, path, body, headers) {
  const url = new URL(path, base);
  const raw = typeof body === "string";
  const payload =
    body === undefined ? undefined : raw ? body : JSON.stringify(body);
  return http.request(url, {
    method,
    // A connection per request: none is left open to hold up the servers' shutdown.
    agent: false,
    headers: {
      ...(payload !== undefined
        ? {
            "Content-Type": raw
              ? "application/octet-stream"
              : "application/json",
          }
        : {}),
      ...headers,
    },
  });
}

/** One request; its status, JSON body and whether it was a replay. */
function send(base, method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(base, method, path, body, headers);
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode,
          body: text ? JSON.parse(text) : null,
          replayed: res.headers["idempotent-replayed"] === "true",
        }),
      );
    });
    req.on("error", reject);
    req.end(
      body === undefined
        ? undefined
        : typeof body === "string"
          ? body
          : JSON.stringify(body),
    );
  });
}

/**
 * Sends the request and cuts the connection as its answer starts to arrive: the write is done,
 * the client never reads what it was told.
 */
function cut(base, method, path, body, headers = {}) {
  return new Promise((resolve) => {
    const req = request(base, method, path, body, headers);
    req.on("error", () => resolve());
    req.on("response", () => {
      req.destroy();
      resolve();
    });
    req.end(typeof body === "string" ? body : JSON.stringify(body));
  });
}

// --- Alone ---

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const pg =
    process.env.ARBOR_TEST_PG_URL ||
    "postgres://postgres@127.0.0.1:5432/postgres";
  const { startServe: serve, stopAll } = await import("./serve-process.mjs");
  const ok = reportIdempotency(await idempotencyFaults({ pg, serve, stopAll }));
  process.exitCode = ok ? 0 : 1;
}
