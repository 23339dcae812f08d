// Checks the package's `exports` map against the build: every entry is built, every public
// entry folder (src/<name>/index.ts) is exported, every entry answers require() with the
// ES-modules-only error, and "." is the session entry. Also checks that the published declarations
// import no other package (not even `node:` modules) but the regular `dependencies` (hono, zod…,
// installed with arbor-memory): they must compile in a project that has only arbor-memory and
// typescript, whatever optional peers it skipped; only an entry that needs a peer to run may name
// that peer's types (PEER_TYPES). Run by `npm run build`.
import { existsSync, readdirSync, readFileSync } from "node:fs";

const pkg = JSON.parse(
  readFileSync(new URL("../package.json", import.meta.url), "utf8"),
);
const problems = [];
const exported = new Set();

// What require() of any entry loads: an error saying the package is ES modules only (Node 20
// would otherwise answer ERR_PACKAGE_PATH_NOT_EXPORTED, which does not say to use import).
const REQUIRE_ANSWER = "./cjs/esm-only.cjs";
for (const [entry, target] of Object.entries(pkg.exports)) {
  if (typeof target === "string") continue;
  for (const file of [target.import, target.types]) {
    if (!existsSync(new URL(`../${file}`, import.meta.url))) {
      problems.push(`${entry}: ${file} was not built`);
    }
  }
  if (target.require !== REQUIRE_ANSWER) {
    problems.push(
      `${entry}: its "require" condition must be ${REQUIRE_ANSWER}, which says to use import`,
    );
  }
  exported.add(target.import);
}
// `import "arbor-memory"` is the session entry.
if (pkg.exports["."]?.import !== pkg.exports["./session"]?.import) {
  problems.push(`"." must export the same module as "./session"`);
}

for (const folder of readdirSync(new URL("../src", import.meta.url))) {
  const built = `./dist/${folder}/index.js`;
  if (
    existsSync(new URL(`../src/${folder}/index.ts`, import.meta.url)) &&
    !exported.has(built)
  ) {
    problems.push(
      `src/${folder}/index.ts is a public entry but no export points at ${built}`,
    );
  }
}

// A specifier that is not relative, in code (lines of doc comments are skipped).
const PACKAGE_IMPORT =
  /(?:from\s+|import\s*\(\s*|reference\s+types=)["'](?!\.)([^"']+)["']/;
const dist = new URL("../dist/", import.meta.url);
const dependencies = Object.keys(pkg.dependencies ?? {});
/** `hono/streaming` belongs to `hono`, `@hono/zod-openapi` to itself. */
const isDependency = (specifier) =>
  dependencies.some(
    (name) => specifier === name || specifier.startsWith(`${name}/`),
  );
/**
 * The exceptions: an entry that cannot run without an optional peer may name that peer's
 * types. `arbor-memory/ai-sdk` answers chats with `ai` and hands `respond` the AI SDK's own
 * `ModelMessage[]` and `ToolSet`, so `streamText()` takes them as they are under strict
 * TypeScript. A project without `ai` never imports that entry's types. `arbor-memory/langgraph`'s
 * saver is a LangGraph `BaseCheckpointSaver`, so its declarations extend that class and take
 * LangChain's `RunnableConfig`. `arbor-memory/openai-agents` implements the Agents SDK's `Session`
 * over its `AgentInputItem`, so `run(agent, input, { session })` type-checks; it loads nothing of
 * the SDK at run time.
 */
const PEER_TYPES = {
  "ai-sdk/": ["ai"],
  "langgraph/": [
    "@langchain/langgraph-checkpoint",
    "@langchain/core/runnables",
  ],
  "openai-agents/": ["@openai/agents-core"],
};
const isEntryPeer = (file, specifier) =>
  Object.entries(PEER_TYPES).some(
    ([folder, peers]) =>
      String(file).startsWith(folder) && peers.includes(specifier),
  );
for (const file of readdirSync(dist, { recursive: true })) {
  if (!String(file).endsWith(".d.ts")) continue;
  const lines = readFileSync(new URL(String(file), dist), "utf8").split("\n");
  for (const line of lines) {
    const found = /^\s*(\*|\/\*\*)/.test(line)
      ? null
      : PACKAGE_IMPORT.exec(line);
    if (found && !isDependency(found[1]) && !isEntryPeer(file, found[1])) {
      problems.push(
        `dist/${file} imports "${found[1]}": published types must not need another package`,
      );
    }
  }
}

if (problems.length > 0) {
  console.error(
    `Package exports do not match the build:\n- ${problems.join("\n- ")}`,
  );
  process.exit(1);
}
