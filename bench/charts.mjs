// Charts of a benchmark run: reads .bench/results.json (or the files given as arguments) and writes
// hand-written SVG to docs/benchmarks/. Run last by bench/run.mjs, or alone:
// `node bench/charts.mjs [results.json …]`. It charts whatever rows exist and prints (and writes
// into each chart) what it expected and did not find.
//
// Rows it reads, keyed on the workload name (backends name the design, see `design()`):
//
// get-history-by-depth.svg: unit "ms", workload `[<prefix>: ]getHistory [depth ]<N>[, <mode>]`:
//   "getHistory depth 1,000, warm" | ", cold" | ", uncached"  sqlite file        (bench/run.mjs)
//   "side by side: getHistory 10,000, warm" | ", cold"        arbor, reference   (bench/reference.mjs)
//   "side by side: getHistory depth 100,000, warm" …          arbor, reference   (more depths)
//   "workerd: getHistory 10,000, warm" | ", new handle" | ", restarted"
//                                      arbor (workerd), agents@0.32 (workerd) (bench/agents-032.mjs)
//   "getHistory depth 10,000, warm"                           postgres pool      (bench/run.mjs)
//   Expected: Arbor, agents@0.22 and agents@0.32 at depths 1,000, 10,000 and 100,000.
//
// search-latency.svg: unit "ms", workload containing "search" but not "first search":
//   "search 50,000, one term" | "two terms"                   sqlite file, in-memory (bench/run.mjs)
//   "workerd: search 50,000 <dense|sparse> vocabulary, <one word|two words>"
//                                      arbor (workerd), agents@0.32 (workerd)
//   "scale: search 1,000,000, <one word|two words|question (5–10 words)>, <p50|p95>"
//                                      sqlite file, postgres pool, raw sqlite, raw postgres
//                                      (bench/scale.mjs)
//   Expected: at least one row per design (Arbor, agents@0.32) and the scale rows.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const OUT = join(ROOT, "docs", "benchmarks");
const DEPTHS = [1_000, 10_000, 100_000];
const DESIGNS = ["Arbor", "agents@0.22", "agents@0.32"];
const HISTORY = /^(?:([^:]+): )?getHistory (?:depth )?([\d,]+)(?:, (.+))?$/;

/** Reads the results files and writes both charts; returns the notes about missing rows. */
export function writeChartsFrom(
  files = [join(ROOT, ".bench", "results.json")],
) {
  const rows = [];
  for (const file of files) {
    if (!existsSync(file)) {
      console.log(`charts: ${file} not found, skipped`);
      continue;
    }
    rows.push(...(JSON.parse(readFileSync(file, "utf8")).rows ?? []));
  }
  // Files merged from several runs: the last row of a (workload, backend) pair wins.
  const latest = new Map();
  for (const row of rows)
    latest.set(`${row.workload}\u0000${row.backend}`, row);
  return writeCharts([...latest.values()]);
}

/** Writes get-history-by-depth.svg and search-latency.svg for `rows` into docs/benchmarks/. */
export function writeCharts(rows) {
  mkdirSync(OUT, { recursive: true });
  const notes = [];
  for (const [file, chart] of [
    ["get-history-by-depth.svg", historyChart],
    ["search-latency.svg", searchChart],
  ]) {
    const { svg, missing } = chart(rows);
    writeFileSync(join(OUT, file), svg);
    console.log(
      `charts: wrote docs/benchmarks/${file}${missing.length ? `; missing: ${missing.join(", ")}` : ""}`,
    );
    notes.push(...missing);
  }
  return notes;
}

// --- getHistory by depth ---

function historyChart(rows) {
  const series = new Map();
  for (const row of rows) {
    const match = HISTORY.exec(row.workload);
    if (!match || row.unit !== "ms" || !(row.value > 0)) continue;
    const [, section, count, mode = "warm"] = match;
    const { name, family } = design(row.backend);
    // Designs only: the raw ceilings (bench/raw-ceiling.mjs) are not one.
    if (!DESIGNS.includes(family) || /ceiling/.test(section ?? "")) continue;
    // A section ("side by side", "workerd") is its own series: its own workload and store.
    const tag = section && !name.includes(section) ? ` [${section}]` : "";
    const key = `${name}, ${mode}${tag}`;
    if (!series.has(key)) series.set(key, { key, family, mode, points: [] });
    series.get(key).points.push([Number(count.replaceAll(",", "")), row.value]);
  }
  for (const entry of series.values()) entry.points.sort((a, b) => a[0] - b[0]);
  const missing = [];
  for (const family of DESIGNS)
    for (const depth of DEPTHS)
      if (
        ![...series.values()].some(
          (entry) =>
            entry.family === family && entry.points.some(([d]) => d === depth),
        )
      )
        missing.push(
          `getHistory ${family} at depth ${depth.toLocaleString("en")}`,
        );
  const list = [...series.values()].sort((a, b) => a.key.localeCompare(b.key));
  return { svg: lineChart(list, missing), missing };
}

function lineChart(list, missing) {
  const width = 760;
  const plot = { left: 70, top: 50, width: 420, height: 300 };
  const legendX = plot.left + plot.width + 20;
  const height = Math.max(
    plot.top + plot.height + 70,
    plot.top + list.length * 18 + 20,
  );
  const parts = [
    text(width / 2, 24, "getHistory time by depth (log scales)", {
      anchor: "middle",
      size: 15,
      weight: "bold",
    }),
  ];
  const all = list.flatMap((entry) => entry.points);
  if (all.length === 0) {
    parts.push(
      text(width / 2, 120, "No getHistory rows in the results.", {
        anchor: "middle",
      }),
    );
    return svgDocument(width, 200, parts, missing);
  }
  const xs = logRange(all.map(([d]) => d));
  const ys = logRange(all.map(([, v]) => v));
  const x = (d) =>
    plot.left +
    ((Math.log10(d) - xs.min) / (xs.max - xs.min || 1)) * plot.width;
  const y = (v) =>
    plot.top +
    plot.height -
    ((Math.log10(v) - ys.min) / (ys.max - ys.min || 1)) * plot.height;
  parts.push(...axes(plot, xs, ys, x, y, "depth (messages on the path)", "ms"));
  const colorOf = painter();
  list.forEach((entry, index) => {
    const color = colorOf(entry.family, entry.key.split(",")[0]);
    const dash = DASHES[entry.mode] ?? "4 2";
    const path = entry.points
      .map(
        ([d, v], i) => `${i ? "L" : "M"}${x(d).toFixed(1)},${y(v).toFixed(1)}`,
      )
      .join(" ");
    if (entry.points.length > 1)
      parts.push(
        `<path d="${path}" fill="none" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ""}/>`,
      );
    for (const [d, v] of entry.points)
      parts.push(
        `<circle cx="${x(d).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3.5" fill="${color}"><title>${escape(`${entry.key}: depth ${d.toLocaleString("en")}, ${formatMs(v)}`)}</title></circle>`,
      );
    const ly = plot.top + index * 18;
    parts.push(
      `<line x1="${legendX}" y1="${ly}" x2="${legendX + 24}" y2="${ly}" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ""}/>`,
      text(legendX + 30, ly + 4, entry.key, { size: 11 }),
    );
  });
  return svgDocument(width, height, parts, missing);
}

// --- Search latency ---

function searchChart(rows) {
  const groups = new Map();
  for (const row of rows) {
    if (
      row.unit !== "ms" ||
      !/search/i.test(row.workload) ||
      /first search/i.test(row.workload) ||
      !(row.value > 0)
    )
      continue;
    if (!groups.has(row.workload)) groups.set(row.workload, []);
    const { name, family } = design(row.backend);
    groups.get(row.workload).push({ name, family, value: row.value });
  }
  const missing = [];
  const families = new Set(
    [...groups.values()].flat().map((bar) => bar.family),
  );
  for (const family of ["Arbor", "agents@0.32"])
    if (!families.has(family)) missing.push(`search rows for ${family}`);
  if (![...groups.keys()].some((workload) => workload.startsWith("scale: ")))
    missing.push("scale search rows (bench/scale.mjs)");
  return { svg: barChart(groups, missing), missing };
}

function barChart(groups, missing) {
  const width = 760;
  const labelWidth = 230;
  const barArea = 420;
  const barHeight = 14;
  const parts = [
    text(width / 2, 24, "Search latency by design and query (ms, log scale)", {
      anchor: "middle",
      size: 15,
      weight: "bold",
    }),
  ];
  const values = [...groups.values()].flat().map((bar) => bar.value);
  if (values.length === 0) {
    parts.push(
      text(width / 2, 120, "No search rows in the results.", {
        anchor: "middle",
      }),
    );
    return svgDocument(width, 200, parts, missing);
  }
  const range = logRange(values);
  const x = (v) =>
    labelWidth +
    ((Math.log10(v) - range.min) / (range.max - range.min || 1)) * barArea;
  const colorOf = painter();
  let top = 60;
  for (const [workload, bars] of groups) {
    parts.push(text(10, top, workload, { size: 12, weight: "bold" }));
    top += 8;
    bars.forEach((bar) => {
      const color = colorOf(bar.family, bar.name);
      const end = Math.max(x(bar.value), labelWidth + 1);
      parts.push(
        text(labelWidth - 6, top + barHeight - 3, bar.name, {
          anchor: "end",
          size: 11,
        }),
        `<rect x="${labelWidth}" y="${top}" width="${(end - labelWidth).toFixed(1)}" height="${barHeight}" fill="${color}"><title>${escape(`${workload}, ${bar.name}: ${formatMs(bar.value)}`)}</title></rect>`,
        text(end + 4, top + barHeight - 3, formatMs(bar.value), { size: 11 }),
      );
      top += barHeight + 4;
    });
    top += 16;
  }
  for (
    let power = Math.ceil(range.min);
    power <= Math.floor(range.max);
    power++
  ) {
    const gx = x(10 ** power).toFixed(1);
    parts.unshift(
      `<line x1="${gx}" y1="40" x2="${gx}" y2="${top - 10}" stroke="#ddd"/>`,
      text(Number(gx), 48, formatMs(10 ** power), {
        anchor: "middle",
        size: 10,
        color: "#666",
      }),
    );
  }
  return svgDocument(width, top + 10, parts, missing);
}

// --- Shared helpers ---

/** The design and environment a row's backend names. */
function design(backend) {
  const known = [
    [
      /^agents@0\.32/,
      "agents@0.32",
      (b) => `agents@0.32 (${inner(b) ?? "workerd"})`,
    ],
    [
      /^(reference|agents@0\.22)/,
      "agents@0.22",
      (b) => `agents@0.22 (${inner(b) ?? "SQLite file"})`,
    ],
    [/^raw /, "raw", (b) => `${b} (bare statement)`],
    [/^arbor \(workerd\)$/, "Arbor", () => "Arbor (workerd)"],
    [/^(arbor|sqlite file)$/, "Arbor", () => "Arbor (SQLite file)"],
    [/^postgres/, "Arbor", () => "Arbor (PostgreSQL)"],
    [/^in-memory$/, "Arbor", () => "Arbor (in memory)"],
  ];
  for (const [pattern, family, name] of known)
    if (pattern.test(backend)) return { family, name: name(backend) };
  return { family: backend, name: backend };
}

function inner(backend) {
  return /\(([^)]+)\)/.exec(backend)?.[1];
}

const PALETTES = {
  Arbor: ["#1f5fa8", "#5b9bd5", "#0b3c6e", "#8db8e6", "#2e86c1"],
  "agents@0.22": ["#d9661f", "#f0a35e", "#9c4310"],
  "agents@0.32": ["#2e8b3e", "#7cc68a", "#1b5e27"],
  raw: ["#777", "#aaa"],
};
const OTHER = ["#8e44ad", "#c0392b", "#16a085", "#b7950b"];
const DASHES = {
  warm: "",
  cold: "7 4",
  uncached: "2 3",
  "new handle": "9 3 2 3",
  restarted: "1 3",
};

/** Colors for one chart: each family's palette in turn, one shade per distinct series name. */
function painter() {
  const assigned = new Map();
  const used = new Map();
  return (family, name) => {
    if (!assigned.has(name)) {
      const palette = PALETTES[family] ?? OTHER;
      const n = used.get(family) ?? 0;
      used.set(family, n + 1);
      assigned.set(name, palette[n % palette.length]);
    }
    return assigned.get(name);
  };
}

function logRange(values) {
  const logs = values.map((v) => Math.log10(v));
  const min = Math.floor(Math.min(...logs));
  const max = Math.ceil(Math.max(...logs));
  return { min, max: max === min ? min + 1 : max };
}

function axes(plot, xs, ys, x, y, xLabel, yLabel) {
  const parts = [
    `<rect x="${plot.left}" y="${plot.top}" width="${plot.width}" height="${plot.height}" fill="none" stroke="#999"/>`,
  ];
  for (let power = xs.min; power <= xs.max; power++) {
    const gx = x(10 ** power).toFixed(1);
    parts.push(
      `<line x1="${gx}" y1="${plot.top}" x2="${gx}" y2="${plot.top + plot.height}" stroke="#e5e5e5"/>`,
      text(
        Number(gx),
        plot.top + plot.height + 16,
        (10 ** power).toLocaleString("en"),
        {
          anchor: "middle",
          size: 10,
        },
      ),
    );
  }
  for (let power = ys.min; power <= ys.max; power++) {
    const gy = y(10 ** power).toFixed(1);
    parts.push(
      `<line x1="${plot.left}" y1="${gy}" x2="${plot.left + plot.width}" y2="${gy}" stroke="#e5e5e5"/>`,
      text(plot.left - 6, Number(gy) + 4, formatMs(10 ** power), {
        anchor: "end",
        size: 10,
      }),
    );
  }
  parts.push(
    text(plot.left + plot.width / 2, plot.top + plot.height + 36, xLabel, {
      anchor: "middle",
      size: 11,
    }),
    text(16, plot.top + plot.height / 2, yLabel, {
      anchor: "middle",
      size: 11,
    }),
  );
  return parts;
}

function formatMs(ms) {
  const round = (value, digits) => String(Number(value.toFixed(digits)));
  if (ms >= 1000) return `${round(ms / 1000, ms >= 10_000 ? 0 : 1)} s`;
  if (ms >= 10) return `${Math.round(ms)} ms`;
  if (ms >= 1) return `${round(ms, 1)} ms`;
  return `${Number(ms.toPrecision(2))} ms`;
}

function text(
  x,
  y,
  content,
  { anchor = "start", size = 12, weight = "normal", color = "#222" } = {},
) {
  return `<text x="${Number(x).toFixed(1)}" y="${Number(y).toFixed(1)}" font-size="${size}" font-weight="${weight}" fill="${color}" text-anchor="${anchor}">${escape(content)}</text>`;
}

function escape(value) {
  return String(value)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

function svgDocument(width, height, parts, missing) {
  const lines = missing.length ? ["Not in these results:", ...missing] : [];
  const footer = lines.map((line, i) =>
    text(10, height + 14 + i * 13, line, { size: 10, color: "#a33" }),
  );
  const total = height + lines.length * 13 + 8;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${total}" viewBox="0 0 ${width} ${total}" font-family="system-ui, -apple-system, Segoe UI, sans-serif">
<rect width="100%" height="100%" fill="#fff"/>
${[...parts, ...footer].join("\n")}
</svg>
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2);
  writeChartsFrom(files.length ? files : undefined);
}
