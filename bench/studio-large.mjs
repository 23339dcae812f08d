// The studio on a 10,000-message session with 120 branch points, in Debian's Chromium through
// playwright-core, against the built CLI's `arbor serve`: how long the first message takes to show
// (and whether `/tree` was still loading then), how long the Conversation takes to open whole (at
// the newest message, the tree in) and how many DOM nodes it has then, the frame times while scrolling up through older windows,
// and how long a branch switch at a deep message takes. Targets: open < 1 s with < 3,000 nodes,
// p95 frame < 33 ms, switch < 300 ms.
// Usage: npm run build && node bench/studio-large.mjs [--messages 10000] [--branch-points 120] [--json]
//
// Beside an earlier build (its checkout built with `npm run build`, e.g. a worktree of that
// commit): `--before <checkout> --runs 5` runs this measurement on the two builds alternately in
// one sitting, each run on a database seeded by that build's own library and served by its own
// CLI, and prints the median of each figure per build and the load average around the runs.
// `--root <checkout>` measures that checkout's build once.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const HERE = fileURLToPath(new URL("../", import.meta.url));
const CHROMIUM_PATH = "/usr/bin/chromium";
// The flags of test/studio/support/browser.ts.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const TARGETS = { openMs: 1000, domNodes: 3000, p95FrameMs: 33, switchMs: 300 };
/** Frames of scrolling measured, at this many pixels per frame (a brisk wheel scroll). */
const SCROLL_FRAMES = 240;
const SCROLL_STEP = 120;

const { values } = parseArgs({
  options: {
    messages: { type: "string", default: "10000" },
    "branch-points": { type: "string", default: "120" },
    json: { type: "boolean", default: false },
    root: { type: "string" },
    before: { type: "string" },
    runs: { type: "string", default: "5" },
  },
});
const MESSAGES = Number(values.messages);
const BRANCH_POINTS = Number(values["branch-points"]);
/** The checkout whose build is measured: its CLI serves, its library seeds. */
const ROOT = values.root ? resolve(values.root) : HERE;
const CLI = join(ROOT, "dist/cli/main.js");

for (const root of [ROOT, ...(values.before ? [resolve(values.before)] : [])]) {
  if (!existsSync(join(root, "dist/cli/main.js"))) {
    console.error(
      `${root}/dist/cli/main.js is missing: run npm run build there first`,
    );
    process.exit(1);
  }
}
if (values.before) {
  await compare(resolve(values.before), Number(values.runs));
  process.exit(0);
}
const { SessionManager } = await import(
  pathToFileURL(join(ROOT, "dist/session/index.js")).href
);
const { openSqlite } = await import(
  pathToFileURL(join(ROOT, "dist/sqlite/index.js")).href
);

const folder = await mkdtemp(join(tmpdir(), "arbor-studio-bench-"));
let server;
let context;
try {
  const db = join(folder, "large.db");
  const { sessionId, deepId } = await seed(db, MESSAGES);
  server = await startServer(db);
  context = await chromium.launchPersistentContext(join(folder, "profile"), {
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const result = await measure(page, server.url, sessionId, deepId);
  if (values.json) console.log(JSON.stringify(result));
  else report(result);
} finally {
  await context?.close();
  await server?.stop();
  await rm(folder, { recursive: true, force: true });
}

/**
 * A chain of `count` messages (text, Markdown and tool calls), a sibling at a deep message, and
 * side branches of two messages spread along the chain (a real history's retries), `BRANCH_POINTS`
 * branch points in all.
 */
async function seed(file, count) {
  const manager = SessionManager.create(openSqlite(file));
  const info = await manager.create("Large session", {});
  const session = manager.getSession(info.id);
  const batch = [];
  const flush = async (parentId) => {
    if (batch.length === 0) return;
    await session.appendAll(batch.splice(0), parentId);
  };
  let parent = null;
  for (let index = 0; index < count - 1; index++) {
    batch.push(messageAt(index));
    if (batch.length === 500) {
      await flush(parent);
      parent = `m${index}`;
    }
  }
  await flush(parent);
  // A branch point 10 messages from the end: the switcher there is what the switch measures.
  const deepIndex = count - 12;
  const deepId = `m${deepIndex}`;
  await session.appendMessage(
    {
      id: `${deepId}-alt`,
      role: deepIndex % 2 === 0 ? "user" : "assistant",
      parts: [{ type: "text", text: "Another take on this message." }],
    },
    `m${deepIndex - 1}`,
  );
  // The deep one is a branch point too: the others make up the rest.
  const sides = Math.max(0, BRANCH_POINTS - 1);
  const every = Math.max(1, Math.floor((count - 20) / Math.max(1, sides)));
  for (let point = 0; point < sides; point++) {
    const at = 1 + point * every;
    const first = `side${point}-0`;
    await session.appendMessage(
      {
        id: first,
        role: at % 2 === 0 ? "user" : "assistant",
        parts: [{ type: "text", text: `A retry at message ${at}.` }],
      },
      `m${at - 1}`,
    );
    await session.appendMessage({
      id: `side${point}-1`,
      role: at % 2 === 0 ? "assistant" : "user",
      parts: [{ type: "text", text: "And what followed it." }],
    });
  }
  // The siblings are the newest messages: make the long line the active one again.
  await session.switchBranch(`m${count - 2}`);
  return { sessionId: info.id, deepId };
}

function messageAt(index) {
  const role = index % 2 === 0 ? "user" : "assistant";
  const text = (words) =>
    Array.from({ length: words }, (_, i) => `word${(index + i) % 97}`).join(
      " ",
    );
  if (role === "assistant" && index % 6 === 1)
    return {
      id: `m${index}`,
      role,
      parts: [
        {
          type: "tool-Read",
          toolCallId: `call-${index}`,
          state: "output-available",
          input: { file_path: `/repo/src/file-${index}.ts` },
          output: `${text(40)}\n${text(40)}`,
        },
      ],
    };
  if (role === "assistant" && index % 6 === 3)
    return {
      id: `m${index}`,
      role,
      parts: [
        {
          type: "text",
          text: `## Step ${index}\n\n- ${text(8)}\n- ${text(12)}\n\n\`\`\`ts\nconst value${index} = ${index};\n\`\`\`\n\n${text(30)}`,
        },
      ],
    };
  return {
    id: `m${index}`,
    role,
    parts: [
      { type: "text", text: `Message ${index}: ${text(20 + (index % 40))}` },
    ],
  };
}

async function measure(page, url, sessionId, deepId) {
  const hash = `#/s/${encodeURIComponent(sessionId)}/chat`;
  // A first visit warms the server's caches and the browser's code cache, as a reader's second look.
  // It waits for the whole page (the tree in): a build that shows messages before its tree asks
  // for the tree late, and leaving at the first message would leave the server building that
  // tree while the measured visit asks for its page.
  await page.goto(`${url}/${hash}`);
  await page.waitForSelector(".chat .message");
  await page.waitForFunction(() => !document.querySelector("main[aria-busy]"));
  await page.goto("about:blank");

  // Whether `/tree` was in is read in the page at the moment the message is added (a resource
  // entry appears when its answer has been read whole), not on a later round trip from here,
  // by which time a tree asked for just after the first paint may have arrived.
  await page.addInitScript(
    (selector) => {
      const observer = new MutationObserver(() => {
        if (!document.querySelector(selector)) return;
        observer.disconnect();
        globalThis.__treeInAtFirstMessage = performance
          .getEntriesByType("resource")
          .some((entry) => new URL(entry.name).pathname.endsWith("/tree"));
      });
      observer.observe(document, { childList: true, subtree: true });
    },
    `.chat [data-message-id="m${MESSAGES - 2}"]`,
  );
  const started = Date.now();
  await page.goto(`${url}/${hash}`);
  await page.waitForSelector(`.chat [data-message-id="m${MESSAGES - 2}"]`);
  const firstMessageMs = Date.now() - started;
  const treeLoadedFirst = await page.evaluate(
    () => globalThis.__treeInAtFirstMessage === true,
  );
  await page.waitForFunction(() => !document.querySelector("main[aria-busy]"));
  const openMs = Date.now() - started;
  const domNodes = await page.evaluate(
    () => document.getElementsByTagName("*").length,
  );
  // Where the time went: each API request of the visit, with its duration and size.
  const requests = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .filter((entry) => !entry.name.endsWith("/events"))
      .map((entry) => ({
        path:
          new URL(entry.name).pathname.replace(/^\/v1\/sessions\/[^/]+/, "…") +
          new URL(entry.name).search,
        startMs: Math.round(entry.startTime),
        ms: Math.round(entry.duration),
        kilobytes: Math.round(entry.transferSize / 1024),
      })),
  );
  const atEnd = await page.evaluate(
    () => innerHeight + scrollY >= document.documentElement.scrollHeight - 40,
  );

  // Scroll up frame by frame (older windows load on the way) and time every frame.
  const profiler = process.env.STUDIO_BENCH_PROFILE
    ? await page.context().newCDPSession(page)
    : null;
  if (profiler) {
    await profiler.send("Profiler.enable");
    await profiler.send("Profiler.start");
  }
  const scroll = await page.evaluate(
    ({ frames, step }) =>
      new Promise((resolve) => {
        const times = [];
        let longTasks = 0;
        let longest = 0;
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) {
            longTasks++;
            longest = Math.max(longest, entry.duration);
          }
        });
        observer.observe({ type: "longtask", buffered: false });
        let last = performance.now();
        let count = 0;
        const tick = (now) => {
          times.push(now - last);
          last = now;
          window.scrollBy(0, -step);
          if (++count < frames) requestAnimationFrame(tick);
          else {
            observer.disconnect();
            times.sort((a, b) => a - b);
            resolve({
              frames: times.length,
              p95: times[Math.floor(times.length * 0.95)],
              max: times.at(-1),
              longTasks,
              longestTask: longest,
              maxNodes: document.getElementsByTagName("*").length,
              loadedMessages: document.querySelectorAll(
                ".chat [data-window-key]",
              ).length,
            });
          }
        };
        requestAnimationFrame((now) => {
          last = now;
          requestAnimationFrame(tick);
        });
      }),
    { frames: SCROLL_FRAMES, step: SCROLL_STEP },
  );
  if (profiler) {
    const { profile } = await profiler.send("Profiler.stop");
    printProfile(profile);
  }
  const nodesAfterScroll = await page.evaluate(
    () => document.getElementsByTagName("*").length,
  );

  // Branch switch: the → of the switcher at the deep message, until its sibling shows, focused.
  await page.goto("about:blank");
  await page.goto(`${url}/${hash}`);
  const deep = page.locator(`.chat [data-message-id="${deepId}"]`);
  await deep.waitFor();
  // The switch itself: from a settled view (the tree in, the switchers drawn), so a build that
  // shows messages before its tree is not charged for the tree's arrival here.
  await page.waitForFunction(() => !document.querySelector("main[aria-busy]"));
  await deep.scrollIntoViewIfNeeded();
  const switchStarted = Date.now();
  await deep.locator('button[aria-label="Next branch"]').click();
  await page.waitForSelector(
    `.message.focused[data-message-id="${deepId}-alt"]`,
  );
  const switchMs = Date.now() - switchStarted;
  return {
    messages: MESSAGES,
    branchPoints: BRANCH_POINTS,
    firstMessageMs,
    treeLoadedFirst,
    openMs,
    requests,
    domNodes,
    openedAtEnd: atEnd,
    scroll: { ...scroll, nodesAfterScroll },
    switchMs,
  };
}

/** The functions that took the most time themselves (STUDIO_BENCH_PROFILE=1). */
function printProfile(profile) {
  const self = new Map();
  const interval =
    (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const id of profile.samples) {
    const frame = byId.get(id).callFrame;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}:${frame.lineNumber}`;
    self.set(name, (self.get(name) ?? 0) + interval / 1000);
  }
  for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.error(`  ${ms.toFixed(0).padStart(6)} ms  ${name}`);
}

function report(result) {
  const mark = (ok) => (ok ? "ok" : "MISSED");
  const { scroll } = result;
  console.log(
    `Studio, ${result.messages.toLocaleString("en")}-message session, ${result.branchPoints} branch points (Chromium):`,
  );
  console.log(
    `  first message on screen ${result.firstMessageMs} ms, /tree ${result.treeLoadedFirst ? "already loaded" : "still loading"} then`,
  );
  console.log(
    `  open Conversation      ${result.openMs} ms (target < ${TARGETS.openMs}) ${mark(result.openMs < TARGETS.openMs)}, at the newest message: ${result.openedAtEnd}`,
  );
  for (const request of result.requests)
    console.log(
      `    ${request.path.padEnd(40)} from ${String(request.startMs).padStart(5)} ms, ${String(request.ms).padStart(5)} ms ${String(request.kilobytes).padStart(6)} KB`,
    );
  console.log(
    `  DOM nodes after open   ${result.domNodes} (target < ${TARGETS.domNodes}) ${mark(result.domNodes < TARGETS.domNodes)}`,
  );
  console.log(
    `  scrolling up           p95 frame ${scroll.p95.toFixed(1)} ms (target < ${TARGETS.p95FrameMs}) ${mark(scroll.p95 < TARGETS.p95FrameMs)}, max ${scroll.max.toFixed(1)} ms, ${scroll.longTasks} long tasks (longest ${scroll.longestTask.toFixed(0)} ms), ${scroll.frames} frames, DOM nodes after ${scroll.nodesAfterScroll}`,
  );
  console.log(
    `  branch switch (deep)   ${result.switchMs} ms (target < ${TARGETS.switchMs}) ${mark(result.switchMs < TARGETS.switchMs)}`,
  );
}

/**
 * The two builds alternately, `runs` times each (before, this, before, this, …), each run a fresh
 * process of this script with `--root`; the medians per build, and the load average around.
 */
async function compare(before, runs) {
  const builds = [
    { name: "before", root: before },
    { name: "this", root: ROOT },
  ];
  const results = { before: [], this: [] };
  const loads = [loadavg()[0]];
  for (let run = 0; run < runs; run++) {
    for (const build of builds) {
      const output = execFileSync(
        process.execPath,
        [
          fileURLToPath(import.meta.url),
          "--json",
          "--root",
          build.root,
          "--messages",
          String(MESSAGES),
          "--branch-points",
          String(BRANCH_POINTS),
        ],
        { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
      );
      const result = JSON.parse(output.trim().split("\n").at(-1));
      results[build.name].push(result);
      loads.push(loadavg()[0]);
      console.error(
        `run ${run + 1} ${build.name}: first ${result.firstMessageMs} ms (tree ${result.treeLoadedFirst ? "in" : "loading"}), open ${result.openMs} ms, p95 ${result.scroll.p95.toFixed(1)} ms, nodes ${result.domNodes}/${result.scroll.nodesAfterScroll}, switch ${result.switchMs} ms, load ${loadavg()[0].toFixed(2)}`,
      );
    }
  }
  const median = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2
      ? sorted[middle]
      : (sorted[middle - 1] + sorted[middle]) / 2;
  };
  const summary = Object.fromEntries(
    builds.map(({ name }) => {
      const list = results[name];
      return [
        name,
        {
          firstMessageMs: median(list.map((r) => r.firstMessageMs)),
          firstBeforeTree: list.filter((r) => !r.treeLoadedFirst).length,
          openMs: median(list.map((r) => r.openMs)),
          domNodes: median(list.map((r) => r.domNodes)),
          nodesAfterScroll: median(list.map((r) => r.scroll.nodesAfterScroll)),
          p95FrameMs: median(list.map((r) => r.scroll.p95)),
          longTasks: median(list.map((r) => r.scroll.longTasks)),
          switchMs: median(list.map((r) => r.switchMs)),
        },
      ];
    }),
  );
  const load = {
    min: Math.min(...loads),
    max: Math.max(...loads),
    median: median(loads),
  };
  if (values.json) {
    console.log(JSON.stringify({ runs, summary, load, results }));
    return;
  }
  console.log(
    `Studio, ${MESSAGES.toLocaleString("en")} messages, ${BRANCH_POINTS} branch points: median of ${runs} runs per build, alternating`,
  );
  console.log(
    `  1-minute load average ${load.min.toFixed(2)} to ${load.max.toFixed(2)} (median ${load.median.toFixed(2)}), ${navigatorCores()} cores`,
  );
  const row = (label, key, unit = " ms") =>
    console.log(
      `  ${label.padEnd(28)} ${String(round(summary.before[key])).padStart(8)}${unit}  ${String(round(summary.this[key])).padStart(8)}${unit}`,
    );
  console.log(
    `  ${"".padEnd(28)} ${"before".padStart(11)}  ${"this".padStart(11)}`,
  );
  row("first message on screen", "firstMessageMs");
  console.log(
    `  ${"  ... before /tree was in".padEnd(28)} ${`${summary.before.firstBeforeTree}/${runs}`.padStart(11)}  ${`${summary.this.firstBeforeTree}/${runs}`.padStart(11)}`,
  );
  row("open whole", "openMs");
  row("DOM nodes after open", "domNodes", "   ");
  row("DOM nodes after scrolling", "nodesAfterScroll", "   ");
  row("scroll p95 frame", "p95FrameMs");
  row("long tasks while scrolling", "longTasks", "   ");
  row("deep branch switch", "switchMs");
}

function round(value) {
  return Number.isInteger(value) ? value : Number(value.toFixed(1));
}

function navigatorCores() {
  return cpus().length;
}

/** Starts `arbor serve` on `db` at a free port; resolves with its URL once it listens. */
function startServer(db) {
  const child = spawn(
    process.execPath,
    [CLI, "serve", "--db", db, "--port", "0", "--skip-sample"],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let errors = "";
  child.stderr.on("data", (chunk) => (errors += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null)
      child.kill("SIGINT");
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`arbor serve did not start:\n${errors}`));
    }, 30_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`arbor serve exited with ${code}:\n${errors}`));
    });
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^Arbor is listening on (\S+)$/.exec(line);
      if (!match) return;
      clearTimeout(timer);
      resolve({ url: match[1], stop });
    });
  });
}
