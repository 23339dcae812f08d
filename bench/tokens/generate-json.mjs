// Writes the JSON samples of the token-estimation corpus (bench/tokens/corpus/{fit,heldout}/json).
// Deterministic: a seeded generator, a different seed per set, so the two sets never share a
// sample. Shapes mimic what lands in agent transcripts: tool inputs and outputs, API responses,
// stored messages, configuration and metrics, both compact (JSON.stringify) and indented.
// Run: node bench/tokens/generate-json.mjs
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";

const WORDS =
  "account active address agent alpha archive batch branch budget cache channel cluster commit config context cursor daily deploy draft edge error event export feature filter forecast gateway group health index invoice job label latency ledger limit memory merge message metric mode node order owner page payment pending plan policy preview priority profile project queue region release report request retry review role route schedule search session shard snapshot source stage status storage summary sync task team tenant thread token topic trace user version window worker zone".split(
    " ",
  );
const NAMES =
  "Ana Bruno Chen Dana Elif Farid Greta Hiro Ines Jonas Kofi Lena Marta Nikos Olga Pavel Quinn Rosa Sven Tariq Uma Vera Wen Yusuf Zofia".split(
    " ",
  );
const CITIES =
  "Lisbon Osaka Kraków Austin Nairobi Hamburg Lima Toronto Seoul Valencia Perth Tbilisi".split(
    " ",
  );
const SENTENCES = [
  "The deployment finished without errors.",
  "Cache hit ratio dropped after the last release.",
  "User reported that the export button does nothing on Safari.",
  "Retrying the request with a longer timeout fixed the issue.",
  "Scheduled maintenance window starts at 02:00 UTC.",
  "Invoice was paid twice; a refund has been issued.",
  "Search results now include archived threads.",
  "Memory usage stays flat after ten thousand appends.",
  "The summary covers messages 12 to 48 of the thread.",
  "Rate limit exceeded, please retry after 30 seconds.",
];

function rng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (low, high) => low + Math.floor(next() * (high - low + 1));
  const pick = (list) => list[int(0, list.length - 1)];
  const hex = (length) =>
    Array.from({ length }, () => "0123456789abcdef"[int(0, 15)]).join("");
  const uuid = () =>
    `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(["8", "9", "a", "b"])}${hex(3)}-${hex(12)}`;
  const date = () =>
    new Date(
      Date.UTC(
        2024,
        int(0, 11),
        int(1, 28),
        int(0, 23),
        int(0, 59),
        int(0, 59),
        int(0, 999),
      ),
    ).toISOString();
  const words = (low, high) =>
    Array.from({ length: int(low, high) }, () => pick(WORDS)).join(" ");
  return { next, int, pick, hex, uuid, date, words };
}

const shapes = {
  toolSearchResult: (r) => ({
    query: r.words(2, 4),
    results: Array.from({ length: r.int(2, 4) }, () => ({
      title: r.words(3, 7),
      url: `https://docs.example.com/${r.pick(WORDS)}/${r.pick(WORDS)}-${r.int(1, 99)}`,
      snippet: `${r.pick(SENTENCES)} ${r.pick(SENTENCES)}`,
      score: Math.round(r.next() * 1000) / 1000,
    })),
  }),
  weatherTool: (r) => ({
    location: {
      city: r.pick(CITIES),
      lat: +(r.next() * 180 - 90).toFixed(4),
      lon: +(r.next() * 360 - 180).toFixed(4),
    },
    current: {
      temperatureC: r.int(-10, 38),
      humidity: r.int(10, 100),
      windKph: +(r.next() * 40).toFixed(1),
      condition: r.pick(["clear", "cloudy", "rain", "snow", "fog"]),
    },
    forecast: Array.from({ length: r.int(2, 4) }, (_, day) => ({
      day,
      minC: r.int(-5, 15),
      maxC: r.int(15, 35),
      precipitationMm: +(r.next() * 12).toFixed(1),
    })),
  }),
  userList: (r) => ({
    data: Array.from({ length: r.int(2, 4) }, () => {
      const name = r.pick(NAMES);
      return {
        id: r.uuid(),
        name,
        email: `${name.toLowerCase()}.${r.int(1, 999)}@example.org`,
        role: r.pick(["admin", "member", "viewer", "owner"]),
        active: r.next() > 0.3,
        createdAt: r.date(),
      };
    }),
    page: { cursor: r.hex(24), hasMore: r.next() > 0.5 },
  }),
  storedMessages: (r) =>
    Array.from({ length: r.int(2, 3) }, (_, index) => ({
      id: `msg_${r.hex(10)}`,
      role: index % 2 === 0 ? "user" : "assistant",
      parts:
        index % 2 === 0
          ? [{ type: "text", text: r.pick(SENTENCES) }]
          : [
              {
                type: "text",
                text: `${r.pick(SENTENCES)} ${r.pick(SENTENCES)}`,
              },
              {
                type: `tool-${r.pick(["search", "lookup", "fetchPage"])}`,
                toolCallId: `call_${r.hex(16)}`,
                state: "output-available",
                input: { q: r.words(1, 3) },
                output: { ok: true, count: r.int(0, 40) },
              },
            ],
      createdAt: r.date(),
    })),
  config: (r) => ({
    name: `@acme/${r.pick(WORDS)}-${r.pick(WORDS)}`,
    version: `${r.int(0, 4)}.${r.int(0, 20)}.${r.int(0, 9)}`,
    private: r.next() > 0.5,
    scripts: {
      build: "tsc -p tsconfig.build.json",
      test: "vitest run",
      lint: "prettier --check .",
    },
    settings: Object.fromEntries(
      Array.from({ length: r.int(3, 6) }, () => [
        r.pick(WORDS) + "Ms",
        r.int(10, 60000),
      ]),
    ),
    features: Object.fromEntries(
      Array.from({ length: r.int(2, 5) }, () => [
        r.pick(WORDS),
        r.next() > 0.5,
      ]),
    ),
  }),
  logEvents: (r) =>
    Array.from({ length: r.int(3, 6) }, () => ({
      ts: r.date(),
      level: r.pick(["debug", "info", "warn", "error"]),
      msg: r.pick(SENTENCES),
      traceId: r.hex(32),
      durationMs: r.int(1, 5000),
    })),
  metrics: (r) => ({
    series: r.pick(WORDS) + "_latency_ms",
    labels: {
      region: r.pick(["eu-west-1", "us-east-2", "ap-northeast-1"]),
      shard: r.int(0, 63),
    },
    points: Array.from({ length: r.int(8, 20) }, (_, index) => [
      1718000000 + index * 60,
      +(r.next() * 900).toFixed(2),
    ]),
    p50: +(r.next() * 100).toFixed(3),
    p99: +(r.next() * 2000).toFixed(3),
  }),
  errorResponse: (r) => ({
    error: {
      code: r.pick([
        "RATE_LIMITED",
        "NOT_FOUND",
        "INVALID_ARGUMENT",
        "UNAUTHENTICATED",
      ]),
      message: r.pick(SENTENCES),
      details: Array.from({ length: r.int(1, 3) }, () => ({
        field: `${r.pick(WORDS)}.${r.pick(WORDS)}`,
        reason: r.words(3, 6),
      })),
      requestId: r.uuid(),
    },
  }),
};

// The held-out set has one shape the fit set never sees (numeric series), to test generalisation.
const SETS = {
  fit: {
    seed: 1,
    shapes: [
      "toolSearchResult",
      "weatherTool",
      "userList",
      "storedMessages",
      "config",
      "logEvents",
      "errorResponse",
    ],
  },
  heldout: {
    seed: 2,
    shapes: [
      "toolSearchResult",
      "weatherTool",
      "userList",
      "storedMessages",
      "config",
      "logEvents",
      "errorResponse",
      "metrics",
    ],
  },
};

for (const [set, { seed, shapes: names }] of Object.entries(SETS)) {
  const dir = new URL(`./corpus/${set}/json/`, import.meta.url);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const r = rng(seed);
  for (const name of names) {
    for (const variant of [1, 2]) {
      for (const style of ["compact", "indented"]) {
        const value = shapes[name](r);
        const text =
          style === "compact"
            ? JSON.stringify(value)
            : JSON.stringify(value, null, 2);
        writeFileSync(
          new URL(`${name}-${style}-${variant}.json.txt`, dir),
          text + "\n",
        );
      }
    }
  }
  console.log(`${set}: ${readdirSync(dir).length} files`);
}
