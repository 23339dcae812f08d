// The layering of src/, checked on the relative imports of every .ts file (type-only imports,
// `export … from` and dynamic `import()` included, read with TypeScript's own pre-processor):
// no import cycle; the contracts import nothing outside themselves; a backend (src/backends/)
// builds only on the contracts, the pure folders (tree, messages, text, tokens, encoding,
// keys, erase), state and errors, and nothing below it imports a backend; the pure folders never
// import the stateful helpers of state/; src/session/ and src/backends/ never import src/utils/.
// And, on the text of the files: nothing outside src/backends/ and the seed mapping
// (src/session/facade/seed-targets.ts) asks what kind of store it holds; every entry's index.ts
// holds only `export … from` statements. And the seams: the manager and the layers above it reach a
// Session or a SessionManager only through their public members and the declared seams
// (session-seam.ts), never a static or exported `*Of()` accessor; the only module-level map keyed
// by a store is the store-runtime registry (state/store-runtime.ts), beside a listed few pure
// caches.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SOURCE = fileURLToPath(new URL("../../src", import.meta.url));

const graph = importGraph(SOURCE);
const name = (file: string) => relative(SOURCE, file).split(sep).join("/");
const isTest = (file: string) => /\.test(-d)?\.ts$/.test(file);

describe("import rules of src/", () => {
  it("reads the whole tree", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.has(join(SOURCE, "session", "index.ts"))).toBe(true);
  });

  it("has no import cycle", () => {
    const cycles = findCycles(graph).map((cycle) =>
      cycle.map(name).join(" -> "),
    );
    expect(cycles, `import cycles:\n${cycles.join("\n")}`).toEqual([]);
  });

  it("src/session/contracts/ imports nothing outside itself", () => {
    const violations = edges()
      .filter(([from]) => name(from).startsWith("session/contracts/"))
      .filter(([, to]) => !name(to).startsWith("session/contracts/"))
      .map(describeEdge);
    const external = [...graph.keys()]
      .filter((file) => name(file).startsWith("session/contracts/"))
      .flatMap((file) =>
        importsOf(file)
          .filter((specifier) => !specifier.startsWith("."))
          .map((specifier) => `${name(file)} -> ${specifier}`),
      );
    expect([...violations, ...external]).toEqual([]);
  });

  it("src/backends/ builds only on the session's contracts, pure folders (tree, messages, text, tokens, encoding, keys, erase), state and errors", () => {
    const allowed = (target: string) =>
      /^session\/(contracts|tree|messages|text|tokens|encoding|keys|erase|state|errors)\//.test(
        target,
      ) || target.startsWith("backends/");
    const violations = edges()
      .filter(([from]) => name(from).startsWith("backends/"))
      .filter(([, to]) => !allowed(name(to)))
      .map(describeEdge);
    expect(violations).toEqual([]);
  });

  it("a backend never imports another backend", () => {
    const backendOf = (file: string) =>
      /^backends\/([^/]+)\//.exec(name(file))?.[1];
    const violations = edges()
      .filter(([from, to]) => {
        const source = backendOf(from);
        const target = backendOf(to);
        return (
          source !== undefined && target !== undefined && source !== target
        );
      })
      .map(describeEdge);
    expect(violations).toEqual([]);
  });

  it("src/session/{tree,messages,text,tokens,encoding,keys,erase}/ are pure: they never import the stateful helpers of src/session/state/", () => {
    const violations = edges()
      .filter(([from]) =>
        /^session\/(tree|messages|text|tokens|encoding|keys|erase)\//.test(
          name(from),
        ),
      )
      .filter(([, to]) => name(to).startsWith("session/state/"))
      .map(describeEdge);
    expect(violations).toEqual([]);
  });

  it("the session's contracts, pure folders and state never import a backend", () => {
    const violations = edges()
      .filter(([from]) =>
        /^session\/(contracts|tree|messages|text|tokens|encoding|keys|erase|state|errors)\//.test(
          name(from),
        ),
      )
      .filter(([, to]) => name(to).startsWith("backends/"))
      .map(describeEdge);
    expect(violations).toEqual([]);
  });

  it("outside src/backends/, only the declared boundaries and entry files import a backend", () => {
    // Each turns what a user passes (a sql store, a PostgreSQL client) into a backend; everything
    // else reaches a store through the contracts (ARCHITECTURE.md, "Adding a backend").
    const boundaries = [
      // The seed mapping: a `sql` store becomes the sql backend (Session.create, SessionManager.create).
      SEED_MAPPING,
      // The in-process block history of a provider that keeps none.
      "session/facade/session-stores.ts",
      // SessionManager.inMemory(): the memory backend.
      "session/manager/manager-backend.ts",
      // arbor-memory/sqlite's sqliteBackend(): the sql backend over a better-sqlite3 database.
      "sqlite/sqlite-backend.ts",
    ];
    const violations = edges()
      .filter(([from, to]) => !isTest(from) && name(to).startsWith("backends/"))
      .map(([from]) => name(from))
      .filter((from) => !from.startsWith("backends/"))
      .filter((from) => !/(^|\/)index\.ts$/.test(from))
      .filter((from) => !boundaries.includes(from));
    expect([...new Set(violations)]).toEqual([]);
  });

  it("only src/backends/ and the seed mapping ask what kind of store they hold", () => {
    // A Backend is the way in: the seed's forms (a `sql` store, a provider) are told apart once,
    // in the seed mapping; the predicates are defined in the contracts; every other file reaches
    // a store through the contracts only, never by asking whether it is a `sql` store, a
    // PostgreSQL client or a Backend, nor by comparing a backend's name.
    const allowed = (file: string) =>
      file.startsWith("backends/") ||
      file === SEED_MAPPING ||
      // sqliteBackend(fileOrDatabase) tells its own argument's forms apart (a path, a
      // better-sqlite3 Database, an openSqlite() handle): arbor-memory/sqlite's backend factory.
      file === "sqlite/sqlite-backend.ts" ||
      KIND_PREDICATE_HOMES.includes(file);
    const violations = [...graph.keys()]
      .filter((file) => !isTest(file) && !allowed(name(file)))
      .flatMap((file) =>
        kindChecksOf(readFileSync(file, "utf8")).map(
          (check) => `${name(file)}: ${check}`,
        ),
      );
    expect(violations).toEqual([]);
  });

  it("PostgreSQL has no stand-ins: no postgres-seed module, nothing imports one", () => {
    const stale = [...graph.keys()]
      .filter((file) => /postgres-seed/.test(name(file)))
      .map(name);
    const imports = [...graph.keys()].flatMap((file) =>
      importsOf(file)
        .filter((specifier) => /postgres-seed/.test(specifier))
        .map((specifier) => `${name(file)} -> ${specifier}`),
    );
    expect([...stale, ...imports]).toEqual([]);
  });

  it("each entry's index.ts holds only `export … from` statements", () => {
    // An entry is its public list, nothing else: code in it would run for every importer and
    // could not be dropped by a bundler (ARCHITECTURE.md, "Import rules"). The entries are the
    // modules package.json exports (utils/compaction-helpers.ts among them), and every top-level
    // folder's index.ts.
    const exported = entrySources();
    const entries = [...graph.keys()].filter(
      (file) =>
        exported.includes(name(file)) ||
        /^[^/]+(\/react)?\/index\.ts$/.test(name(file)),
    );
    expect(entries.length).toBeGreaterThan(10);
    expect(exported.filter((entry) => !graph.has(join(SOURCE, entry)))).toEqual(
      [],
    );
    expect(entries.map(name)).toContain("utils/compaction-helpers.ts");
    const violations = entries.flatMap((file) => {
      const source = ts.createSourceFile(
        file,
        readFileSync(file, "utf8"),
        ts.ScriptTarget.Latest,
        true,
      );
      return source.statements
        .filter(
          (statement) =>
            !(
              ts.isExportDeclaration(statement) &&
              statement.moduleSpecifier !== undefined
            ),
        )
        .map(
          (statement) =>
            `${name(file)}:${source.getLineAndCharacterOfPosition(statement.getStart()).line + 1}: ${statement.getText().split("\n")[0]}`,
        );
    });
    expect(violations).toEqual([]);
  });

  it("the guards above see what they look for", () => {
    expect(
      kindChecksOf(
        [
          "if (isSqlProvider(target)) return;",
          "if (isPostgresClient(store)) return new PostgresSessionProvider(store);",
          'if (typeof Reflect.get(store, "sql") === "function") return store;',
          "const ok = isBackend(value) || isPostgresJs(value);",
          'if (backend.name === "postgres") return;',
          'if ("sql" in store) return;',
          'if (typeof (store as { sql?: unknown }).sql === "function") return;',
          "if (provider instanceof PostgresSessionProvider) return;",
        ].join("\n"),
      ),
    ).toHaveLength(9);
    expect(
      kindChecksOf(
        'export { isBackend, type Backend } from "./contracts/backend.js";\n// isSqlProvider(x) in a comment',
      ),
    ).toEqual([]);
  });

  it("src/sessions/ is an adapter on top: nothing else in src/ imports it", () => {
    const violations = edges()
      .filter(([from]) => !name(from).startsWith("sessions/"))
      .filter(([, to]) => name(to).startsWith("sessions/"))
      .map(describeEdge);
    expect(violations).toEqual([]);
  });

  it("src/server/ and src/formats/ load in workerd: no Node built-in, no Node-only entry", () => {
    const workerSafe = (file: string) =>
      /^(server|formats)\//.test(name(file)) && !isTest(file);
    const nodeOnly = edges()
      .filter(([from]) => workerSafe(from))
      .filter(([, to]) => /^(cli|sqlite|fs|tokenizer|studio)\//.test(name(to)))
      .map(describeEdge);
    const builtins = [...graph.keys()].filter(workerSafe).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith("node:"))
        .map((specifier) => `${name(file)} -> ${specifier}`),
    );
    expect([...nodeOnly, ...builtins]).toEqual([]);
  });

  it("the CLI and the studio sit on top: nothing else in src/ imports them", () => {
    const top = (file: string) => /^(cli|studio)\//.test(name(file));
    const violations = edges()
      .filter(([from, to]) => top(to) && !top(from))
      .map(describeEdge);
    expect(violations).toEqual([]);
  });

  it("src/utils builds on the session, never the other way (tests aside)", () => {
    // utils re-exports session helpers (truncation, the row-size limit, token estimates); were the
    // session to import utils back, the two would form one layer again.
    const below = (file: string) => /^(session|backends)\//.test(name(file));
    const violations = edges()
      .filter(([from]) => below(from) && !isTest(from))
      .filter(([, to]) => name(to).startsWith("utils/"))
      .map(describeEdge);
    expect(violations).toEqual([]);
  });

  it("no side door: no static `*Of()` accessor, and beside each class only its declared seam takes one", () => {
    // `Session.runtimeOf(session)`, `SessionManager.streamsOf(manager)` and functions beside a
    // class that take its instance (`watchStore(session)`) hand its private state to whoever
    // imports them; `sessionSeam` and `managerSeam` (session-seam.ts) are the one declared way in.
    const statics = sourceFiles().flatMap((file) =>
      [
        ...readFileSync(file, "utf8").matchAll(/\bstatic\s+(\w+Of)\s*[(<]/g),
      ].map((match) => `${name(file)}: static ${match[1]}`),
    );
    const beside = [
      ["session/facade/session.ts", "Session", "sessionSeam"],
      ["session/manager/session-manager.ts", "SessionManager", "managerSeam"],
    ].flatMap(([file, type, seam]) =>
      [
        ...readFileSync(join(SOURCE, file!), "utf8").matchAll(
          new RegExp(
            `\\bexport\\s+(?:async\\s+)?function\\s+(\\w+)\\s*(?:<[^>]*>)?\\(\\s*\\w+\\s*:\\s*${type}\\b`,
            "g",
          ),
        ),
      ]
        .map((match) => match[1])
        .filter((found) => found !== seam)
        .map((found) => `${file}: ${found}`),
    );
    expect([...statics, ...beside]).toEqual([]);
  });

  it("from another folder, the Session and SessionManager modules are imported for their public names and declared seams only", () => {
    const facades = [
      "session/facade/session.ts",
      "session/manager/session-manager.ts",
    ];
    const seams = new Set(["sessionSeam", "managerSeam"]);
    const publicNames = new Set(
      [
        "session/index.ts",
        "server/index.ts",
        "ai-sdk/index.ts",
        "sessions/index.ts",
      ].flatMap((entry) => exportedNames(join(SOURCE, entry))),
    );
    const importers = edges()
      .filter(([, to]) => facades.includes(name(to)))
      .map(([from]) => from)
      .filter((from) => !isTest(from));
    const violations = [...new Set(importers)].flatMap((file) =>
      namedImports(file)
        .filter(({ target }) => facades.includes(name(target)))
        .filter(({ target }) => dirname(target) !== dirname(file))
        .filter(({ imported }) => !publicNames.has(imported))
        .filter(({ imported }) => !seams.has(imported))
        .map(
          ({ target, imported }) =>
            `${name(file)} -> ${name(target)}: ${imported}`,
        ),
    );
    expect(violations).toEqual([]);
  });

  it("a Session's state (session-runtime.ts, session-writes.ts) is reached by its own modules only, never by the manager or the layers above", () => {
    const state = [
      "session/facade/session-runtime.ts",
      "session/facade/session-writes.ts",
    ];
    const violations = edges()
      .filter(([, to]) => state.includes(name(to)))
      .filter(
        ([from]) =>
          !isTest(from) &&
          (!name(from).startsWith("session/") ||
            name(from).startsWith("session/manager/")),
      )
      .map(describeEdge);
    expect(violations).toEqual([]);
  });

  it("module-level WeakMaps and WeakSets: the store-runtime registry and the listed caches only", () => {
    // Whatever objects over one store must share (append locks, erase epochs, change hubs, the
    // Backend, the embeddings object, a PostgreSQL executor) is a slot of the store's runtime
    // (state/store-runtime.ts), found by the store's identity in that one registry. What stays
    // module-level is a cache of work already done per object, which no other object coordinates
    // through; a new entry needs a reason here.
    const allowed: Record<string, string> = {
      "session/state/store-runtime.ts":
        "the registry: one StoreRuntime per store identity",
      "sqlite/sqlite-backend.ts":
        "the handle given to a better-sqlite3 Database, so one database is one store",
      "backends/sql/sql-schema.ts": "schema applied to this store object",
      "backends/sql/sql-block-history.ts":
        "tables created on this store object",
      "backends/sql/sql-streams.ts": "tables created on this store object",
      "backends/sql/sql-context-provider.ts":
        "tables created on this store object",
      "backends/sql/sql-registry-table.ts":
        "tables created on this store object",
      "backends/sql/sql-registry.ts":
        "the parent index created on this store object",
      "backends/sql/sql-path.ts": "whether the engine has octet_length()",
      "backends/sql/sql-path-cache.ts":
        "whether the engine allows data_version / a change token",
      "backends/postgres/postgres-settings.ts":
        "the server settings read once per client",
      "backends/postgres/postgres-term-stats.ts":
        "term statistics cached per client",
      "session/embeddings/embedding-stores.ts":
        "the opened embedding store and indexes per embeddings object (one per store, a runtime slot)",
      "session/embeddings/embedding-runtime.ts":
        "the sessions hearing one embedding index",
      "mcp/notes-session.ts":
        "notes sessions being created, per SessionManager",
      "studio/app/views/sessions.ts":
        "each list row's fold action, per DOM row of the page (the browser app holds no store)",
    };
    const found = sourceFiles()
      .filter((file) =>
        /^(?:const|let)\s+\w+\s*=\s*new\s+Weak(?:Map|Set)\b/m.test(
          readFileSync(file, "utf8"),
        ),
      )
      .map(name)
      .filter((file) => !(file in allowed));
    expect(found).toEqual([]);
  });
});

// --- Internal helpers ---

/** The source of each module package.json exports: `./dist/x/y.js` is `x/y.ts`. */
function entrySources(): string[] {
  const manifest = JSON.parse(
    readFileSync(join(SOURCE, "..", "package.json"), "utf8"),
  ) as { exports: Record<string, string | { import?: string }> };
  return Object.values(manifest.exports)
    .map((target) => (typeof target === "string" ? target : target.import))
    .filter(
      (target): target is string => target?.startsWith("./dist/") === true,
    )
    .map((target) => target.slice("./dist/".length).replace(/\.js$/, ".ts"));
}

/** The one module that maps the seed's forms (a `sql` store, a provider) to what Arbor runs on. */
const SEED_MAPPING = "session/facade/seed-targets.ts";

/** Where the kind predicates are defined (and only defined). */
const KIND_PREDICATE_HOMES = [
  "session/contracts/sql-provider.ts",
  "session/contracts/postgres-client.ts",
  "session/contracts/backend.ts",
];

/**
 * The store-kind checks in a file's code (comments left out): a call of a kind predicate, a
 * `Reflect.get(…, "sql")` or `"sql" in …` probe, a `typeof ….sql === "function"` test, an
 * `instanceof` of a built-in backend's class, or a comparison with a built-in backend's name.
 */
function kindChecksOf(text: string): string[] {
  const code = stripComments(text);
  const patterns = [
    /\b(isSqlProvider|isPostgresClient|isPostgresJs|isBackend)\s*\(/g,
    /Reflect\.get\(\s*[^,]+,\s*["']sql["']\s*\)/g,
    /["'](sql|execute|query|unsafe)["']\s+in\b/g,
    /typeof\s[^;\n]*\.sql\)?\s*[!=]==?\s*["']function["']/g,
    /\binstanceof\s+(Agent|Sql|Postgres|InMemory|Memory)\w*(Provider|Registry|Store|Backend)\b/g,
    /\.name\s*[!=]==?\s*["'](sql|postgres|memory)["']/g,
  ];
  return patterns.flatMap((pattern) =>
    [...code.matchAll(pattern)].map((match) => match[0]),
  );
}

/** The text of a TypeScript file without its comments (strings and templates kept). */
function stripComments(text: string): string {
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    /* skipTrivia */ false,
    ts.LanguageVariant.Standard,
    text,
  );
  let result = "";
  for (
    let kind = scanner.scan();
    kind !== ts.SyntaxKind.EndOfFileToken;
    kind = scanner.scan()
  ) {
    if (
      kind === ts.SyntaxKind.SingleLineCommentTrivia ||
      kind === ts.SyntaxKind.MultiLineCommentTrivia
    )
      continue;
    result += scanner.getTokenText();
  }
  return result;
}

/** Every file of src/ with the src/ files it imports (resolved `.js` → `.ts`, folders → index.ts). */
function importGraph(root: string): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const file of listTypeScript(root)) {
    const targets = importsOf(file)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolveImport(file, specifier));
    result.set(file, [...new Set(targets)]);
  }
  return result;
}

/** Every non-test .ts file of src/. */
function sourceFiles(): string[] {
  return [...graph.keys()].filter((file) => !isTest(file));
}

/** The names a file imports by name (`import { a, type B }`), with the file each comes from. */
function namedImports(
  file: string,
): Array<{ target: string; imported: string }> {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
  );
  return source.statements.flatMap((statement) => {
    if (
      !ts.isImportDeclaration(statement) ||
      !ts.isStringLiteral(statement.moduleSpecifier) ||
      !statement.moduleSpecifier.text.startsWith(".")
    )
      return [];
    const target = resolveImport(file, statement.moduleSpecifier.text);
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) return [];
    return bindings.elements.map((element) => ({
      target,
      imported: (element.propertyName ?? element.name).text,
    }));
  });
}

/** The names an entry file exports (`export { a, type B } from …`, `export type { … }`). */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
  );
  return source.statements.flatMap((statement) =>
    ts.isExportDeclaration(statement) &&
    statement.exportClause &&
    ts.isNamedExports(statement.exportClause)
      ? statement.exportClause.elements.map(
          (element) => (element.propertyName ?? element.name).text,
        )
      : [],
  );
}

function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((entry) => entry.fileName);
}

function resolveImport(file: string, specifier: string): string {
  const target = resolve(dirname(file), specifier);
  for (const candidate of [
    target.replace(/\.js$/, ".ts"),
    `${target}.ts`,
    join(target, "index.ts"),
  ]) {
    if (graphFileExists(candidate)) return candidate;
  }
  return target;
}

function graphFileExists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function listTypeScript(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return listTypeScript(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function edges(): Array<[string, string]> {
  return [...graph].flatMap(([from, targets]) =>
    targets.map((to): [string, string] => [from, to]),
  );
}

function describeEdge([from, to]: [string, string]): string {
  return `${name(from)} -> ${name(to)}`;
}

/** One cycle per strongly connected group, as a path that returns to its start. */
function findCycles(modules: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const target of modules.get(file) ?? []) {
      if (!modules.has(target)) continue;
      if (state.get(target) === "open")
        cycles.push([...stack.slice(stack.indexOf(target)), target]);
      else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...modules.keys()].sort())
    if (!state.has(file)) visit(file);
  return cycles;
}
