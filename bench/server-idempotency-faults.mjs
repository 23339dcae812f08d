// The idempotency fault run of `npm run bench:server` (bench/server-load.mjs runs it after its
// fault runs; `node bench/server-idempotency-faults.mjs` runs it alone, after `npm run build`):
// two `arbor serve` processes over one new PostgreSQL database, and for each write route
// `AT_ONCE` requests with one `Idempotency-Key` sent at once, split over both; then ambiguous
// failures through a real TCP proxy that drops answers (bench/answer-dropping-proxy.mjs): on
// every write route (create, append, import, compaction overlay, fork, block PUT and revert),
// with and without a key, the client's connection closed once the request is forwarded or while
// the answer comes back, the server finishing its work, then the request retried on the other
// process and once more through the proxy; then `AT_ONCE` imports of one file at once without a
// key. Each check counts what the store holds afterwards: one effect per key or per file, and one
// answer (status and body, the dropped one included) for every request with one key. Exits
// non-zero when a check fails. test/server/idempotency-processes.int.test.ts runs these checks in
// CI, beside the API suite's (test/server/support/cases-idempotency-races.ts).
import http from "node:http";
import { pathToFileURL } from "node:url";
import { applyPostgresSchema } from "arbor-memory/session";
import { throwawayDatabase } from "./standalone.mjs";
import { startDroppingProxy } from "./answer-dropping-proxy.mjs";

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
      versions: (
        await send(a, "GET", `/v1/sessions/${id}/blocks/memory/history`)
      ).body.versions.length,
    });
    // Two versions of a block, for the block routes to write over and revert to.
    for (const content of ["Prefers trains", "Prefers planes"])
      await send(a, "PUT", `/v1/sessions/${id}/blocks/memory`, { content });

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
      [
        "block PUT",
        "PUT",
        `/v1/sessions/${id}/blocks/memory`,
        { content: "Prefers boats" },
        "versions",
      ],
      [
        "block revert",
        "POST",
        `/v1/sessions/${id}/blocks/memory/revert`,
        { version: 1 },
        "versions",
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

    // 2. Answers dropped by a real proxy (bench/answer-dropping-proxy.mjs) in front of the
    // first process, before and while the answer comes back, on every write route, with and
    // without a key; then the retry on the other process, and once more through the proxy.
    checks.push(...(await droppedAnswers(database, a, b)));

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

/**
 * Every write route through a proxy that drops its answer ("before": the client cut once the
 * request is forwarded, the server still working; "while": cut once part of the answer is
 * through), with and without an `Idempotency-Key`, then retried on process `b` and once more
 * through the proxy on `a`. Each case runs on a session of its own and counts its effect in the
 * store afterwards. With a key: one effect, and the retries answer what the dropped answer said
 * (status and body; the proxy read it). Without a key, each route's own rule: an append with its
 * message id and an import (known by its conversation) make one effect; a block write leaves the
 * block as sent, each run recorded as a version; a create, a fork and an overlay have nothing that
 * names them, so their retry makes a second one (docs/server.md#retrying-writes: use a key).
 */
async function droppedAnswers(database, a, b) {
  const proxy = await startDroppingProxy(a);
  const checks = [];
  try {
    let serial = 0;
    for (const mode of ["before", "while"])
      for (const keyed of [true, false])
        for (const route of WRITE_ROUTES) {
          const tag = `${mode}-${keyed ? "key" : "nokey"}-${serial++}`;
          const id = await sourceSession(a, tag);
          const { method, path, body, counted } = route.request(id, tag, keyed);
          if (route.prepare) await route.prepare(a, id);
          const count = () => effects(database, a, id, counted);
          const before = await count();
          const headers = keyed ? { "Idempotency-Key": `drop-${tag}` } : {};
          const dropped = proxy.dropNext(mode);
          const cut = await sendThroughCut(
            proxy.url,
            method,
            path,
            body,
            headers,
          );
          const first = await dropped;
          const retry = await send(b, method, path, body, headers);
          const again = await send(proxy.url, method, path, body, headers);
          const effect = (await count()) - before;
          const firstBody = first.body ? JSON.parse(first.body) : null;
          const same = (answer) =>
            answer.status === first.status &&
            JSON.stringify(answer.body) === JSON.stringify(firstBody);
          const rule = keyed ? "key" : route.keyless;
          const ok =
            cut === "cut" &&
            first.status < 300 &&
            retry.status < 300 &&
            again.status < 300 &&
            (rule === "key"
              ? effect === 1 && same(retry) && same(again)
              : rule === "one"
                ? effect === 1
                : // "state": the block holds what was sent, one version per run (up to 3);
                  // "twice": no identity, so the retry writes again (at most once per attempt).
                  effect >= 1 &&
                  effect <= 3 &&
                  (rule !== "state" ||
                    (await route.holds(a, id, body)) === true));
          checks.push({
            name: `answer dropped ${mode} it came back, retried ${keyed ? "with a key" : "without a key"}: ${route.name}`,
            ok,
            detail: `${effect} ${counted} written; first ${first.status} (client: ${cut}), retry ${retry.status}${retry.replayed ? " replayed" : ""}, again ${again.status}${rule === "key" ? (same(retry) && same(again) ? ", answers identical to the dropped one" : ", answers DIFFER from the dropped one") : rule === "twice" ? " (no identity without a key: documented)" : ""}`,
          });
        }
  } finally {
    await proxy.close();
  }
  return checks;
}

/** The write routes, each with what it changes and its rule without a key. */
const WRITE_ROUTES = [
  {
    name: "create",
    keyless: "twice",
    request: (id, tag) => ({
      method: "POST",
      path: "/v1/sessions",
      body: { name: `Dropped ${tag}` },
      counted: "sessions",
    }),
  },
  {
    name: "append",
    keyless: "one",
    request: (id, tag, keyed) => ({
      method: "POST",
      path: `/v1/sessions/${id}/messages`,
      // Without a key the message's own id is what a retry is known by.
      body: {
        message: {
          ...(keyed ? {} : { id: `d-${tag}` }),
          role: "user",
          parts: [{ type: "text", text: `Dropped ${tag}` }],
        },
        parentId: "m4",
      },
      counted: "messages",
    }),
  },
  {
    name: "import",
    keyless: "one",
    request: (id, tag) => ({
      method: "POST",
      path: `/v1/import?format=openai&fileName=${tag}.json`,
      body: chatFile(`dropped answers ${tag}`),
      counted: "sessions",
    }),
  },
  {
    name: "compaction overlay",
    keyless: "twice",
    request: (id) => ({
      method: "POST",
      path: `/v1/sessions/${id}/compactions`,
      body: { summary: "One to three", fromMessageId: "m1", toMessageId: "m3" },
      counted: "compactions",
    }),
  },
  {
    name: "fork",
    keyless: "twice",
    request: (id, tag) => ({
      method: "POST",
      path: `/v1/sessions/${id}/fork`,
      body: { messageId: "m2", name: `Fork ${tag}` },
      counted: "sessions",
    }),
  },
  {
    name: "block PUT",
    keyless: "state",
    request: (id, tag) => ({
      method: "PUT",
      path: `/v1/sessions/${id}/blocks/memory`,
      body: { content: `Prefers trains (${tag})` },
      counted: "versions",
    }),
    holds: async (base, id, body) =>
      (await send(base, "GET", `/v1/sessions/${id}/blocks/memory`)).body
        ?.content === body.content,
  },
  {
    name: "block revert",
    keyless: "state",
    // Two versions to go back from.
    prepare: async (base, id) => {
      for (const content of ["Prefers trains", "Prefers planes"])
        await send(base, "PUT", `/v1/sessions/${id}/blocks/memory`, {
          content,
        });
    },
    request: (id) => ({
      method: "POST",
      path: `/v1/sessions/${id}/blocks/memory/revert`,
      body: { version: 1 },
      counted: "versions",
    }),
    holds: async (base, id) =>
      (await send(base, "GET", `/v1/sessions/${id}/blocks/memory`)).body
        ?.content === "Prefers trains",
  },
];

/** A session of four messages, m1 to m4. */
async function sourceSession(base, tag) {
  const { id } = (
    await send(base, "POST", "/v1/sessions", { name: `Source ${tag}` })
  ).body;
  for (let index = 1; index <= 4; index++)
    await send(base, "POST", `/v1/sessions/${id}/messages`, {
      message: {
        id: `m${index}`,
        role: index % 2 ? "user" : "assistant",
        parts: [{ type: "text", text: `message ${index}` }],
      },
    });
  return id;
}

/** What a write route changes, counted: sessions in the store, or in session `id`. */
async function effects(database, base, id, counted) {
  if (counted === "sessions")
    return Number(
      (
        await database.pool.query(
          "SELECT COUNT(*) AS n FROM assistant_sessions",
        )
      ).rows[0].n,
    );
  if (counted === "messages")
    return (await send(base, "GET", `/v1/sessions/${id}/tree`)).body.nodes
      .length;
  if (counted === "compactions")
    return (await send(base, "GET", `/v1/sessions/${id}/compactions`)).body
      .compactions.length;
  return (await send(base, "GET", `/v1/sessions/${id}/blocks/memory/history`))
    .body.versions.length;
}

/**
 * Sends a request whose answer the armed proxy drops: "cut" when the client saw its connection
 * closed without a whole answer (as a client would), "answered" if one got through.
 */
function sendThroughCut(base, method, path, body, headers) {
  return new Promise((resolve) => {
    const req = request(base, method, path, body, headers);
    let outcome = "cut";
    req.on("error", () => resolve(outcome));
    req.on("response", (res) => {
      res.on("data", () => undefined);
      res.on("end", () => {
        if (res.complete) outcome = "answered";
        resolve(outcome);
      });
      res.on("error", () => resolve(outcome));
      res.on("aborted", () => resolve(outcome));
      res.on("close", () => resolve(outcome));
    });
    req.end(typeof body === "string" ? body : JSON.stringify(body));
  });
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

// --- Alone ---

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const pg =
    process.env.ARBOR_TEST_PG_URL ||
    "postgres://postgres@127.0.0.1:5432/postgres";
  const { startServe: serve, stopAll } = await import("./serve-process.mjs");
  const ok = reportIdempotency(await idempotencyFaults({ pg, serve, stopAll }));
  process.exitCode = ok ? 0 : 1;
}
