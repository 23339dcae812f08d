/**
 * The three conformance runners of arbor-memory/testing: the provider suite, the SessionManager
 * suite and the erase suite, each registered with the caller's test runner.
 */
import { appendSpec } from "./spec/append.js";
import { appendAllSpec } from "./spec/append-all.js";
import { attachmentsSpec } from "./spec/attachments.js";
import { compactionSpec } from "./spec/compaction.js";
import { deleteSpec } from "./spec/delete.js";
import { historySpec } from "./spec/history.js";
import { historyStreamSpec } from "./spec/history-stream.js";
import { importMessageSpec } from "./spec/import-message.js";
import { recentHistorySpec } from "./spec/recent-history.js";
import { searchSpec } from "./spec/search.js";
import { searchRankingSpec } from "./spec/search-ranking.js";
import { searchStableSpec } from "./spec/search-stable.js";
import { searchPrefixSpec } from "./spec/search-prefix.js";
import { managerSearchTimeSpec, searchTimeSpec } from "./spec/search-time.js";
import { searchMatchSpec } from "./spec/search-match.js";
import { branchesAuditSpec } from "./spec/branches-audit.js";
import { contextSpec } from "./spec/context.js";
import { contextHistorySpec } from "./spec/context-history.js";
import { contextToolsSpec } from "./spec/context-tools.js";
import { sessionCompactionSpec } from "./spec/session-compaction.js";
import { sessionSpec } from "./spec/session.js";
import { sessionInputSpec } from "./spec/session-input.js";
import { largeMessagesSpec } from "./spec/large-messages.js";
import { createSuite } from "./suite.js";
import { watchSpec } from "./spec/watch.js";
import { createManagerSuite, type ManagerFactory } from "./manager-suite.js";
import { managerSpec } from "./spec/manager.js";
import { managerFeaturesSpec } from "./spec/manager-features.js";
import { managerSearchEvidenceSpec } from "./spec/manager-search-evidence.js";
import { managerSearchStableSpec } from "./spec/manager-search-stable.js";
import { managerCreatedBlocksSpec } from "./spec/manager-created-blocks.js";
import { managerCreatedBlocksDeleteSpec } from "./spec/manager-created-blocks-delete.js";
import { managerTenancySpec } from "./spec/manager-tenancy.js";
import type { ConformanceApi, ProviderFactory } from "./types.js";
import { ERASE_SCENARIOS, type EraseBackend } from "./erase/erase-scenarios.js";
import { oneCaseAtATime } from "./one-case-at-a-time.js";

/**
 * Registers the whole conformance suite for one backend with the given runner: tree and
 * append rules, history, delete repair, compaction overlays, search, recent-history windows and
 * the `Session` API over the provider. Most cases run twice, against the raw provider and
 * against a `Session` over it. Cases that need a capability the factory declares absent are
 * registered as skipped, with the reason in their name.
 *
 * Every case calls `factory.create()` for fresh or cleared storage and `destroy()` after it.
 *
 * @example
 * ```ts
 * import { describe, it, expect, beforeAll, afterAll } from "vitest";
 * import { InMemorySessionProvider } from "arbor-memory/session";
 * import { runProviderConformance } from "arbor-memory/testing";
 *
 * runProviderConformance(
 *   {
 *     name: "in-memory",
 *     capabilities: { stemming: false },
 *     create: () => {
 *       const root = new InMemorySessionProvider();
 *       return { session: (sessionId) => root.forSession(sessionId) };
 *     },
 *   },
 *   { describe, it, expect, beforeAll, afterAll },
 * );
 * ```
 */
export function runProviderConformance(
  factory: ProviderFactory,
  api: ConformanceApi,
): void {
  api.describe(`arbor conformance: ${factory.name}`, () => {
    const suite = createSuite(factory, api);
    appendSpec(suite);
    appendAllSpec(suite);
    historySpec(suite);
    historyStreamSpec(suite);
    importMessageSpec(suite);
    deleteSpec(suite);
    compactionSpec(suite);
    searchSpec(suite);
    searchRankingSpec(suite);
    searchStableSpec(suite);
    searchPrefixSpec(suite);
    searchTimeSpec(suite);
    searchMatchSpec(suite);
    recentHistorySpec(suite);
    watchSpec(suite);
    sessionSpec(suite);
    sessionInputSpec(suite);
    contextSpec(suite);
    contextToolsSpec(suite);
    contextHistorySpec(suite);
    sessionCompactionSpec(suite);
    branchesAuditSpec(suite);
    attachmentsSpec(suite);
    largeMessagesSpec(suite);
  });
}

/**
 * Registers the SessionManager suite for one backend: lifecycle, message helpers, fork,
 * compact-and-split, usage, cross-session search and tools, builder propagation, delete
 * (checked by a scan of every stored row), tenant binding and snapshots.
 *
 * @example
 * ```ts
 * runManagerConformance(
 *   { name: "sqlite", create: () => { const db = openSqlite(":memory:"); return { manager: (options) => SessionManager.create(db, options), dump: () => dumpAllTables(db) }; } },
 *   { describe, it, expect },
 * );
 * ```
 */
export function runManagerConformance(
  factory: ManagerFactory,
  api: ConformanceApi,
): void {
  api.describe(`arbor manager conformance: ${factory.name}`, () => {
    const suite = createManagerSuite(factory, api);
    managerSpec(suite);
    managerFeaturesSpec(suite);
    managerSearchStableSpec(suite);
    managerSearchEvidenceSpec(suite);
    managerSearchTimeSpec(suite);
    managerTenancySpec(suite);
    managerCreatedBlocksSpec(suite);
    managerCreatedBlocksDeleteSpec(suite);
  });
}

/** One whole backend for `runEraseConformance`: a fresh store per case. */
export interface EraseConformanceFactory {
  name: string;
  /** A new, empty store: a manager over it, its audit events, and every row it holds as text. */
  create(): EraseBackend;
}

/**
 * Registers the erase, prune and embedding-removal suite for one whole backend (a `Backend` with
 * `erase`, and `embeddings` for the vector cases; docs/custom-providers.md, "A whole backend"):
 * sessions are written with a distinctive secret in every place a session can hold text
 * (messages, overlays, blocks and their history, attachments, metadata, audit events, vectors),
 * erased or pruned, and then `dump()` (every row of the store, index internals included) must hold
 * no trace of the secret while the other sessions' rows stay whole. Races (an erase during
 * appends, a compaction, an embedding in flight) are included. Each case throws on failure.
 *
 * @example
 * ```ts
 * runEraseConformance(
 *   { name: "my-store", create: () => ({ manager: () => SessionManager.create(myBackend()).withContext("memory").withAudit(sink), auditCount: (id) => sink.forSession(id).length, dump: () => deepText(rows), dumpWithoutAudit: () => deepText(rows), expects: { separateIndex: false, changeLog: false } }) },
 *   { describe, it, expect },
 * );
 * ```
 */
export function runEraseConformance(
  factory: EraseConformanceFactory,
  api: ConformanceApi,
): void {
  api.describe(`arbor erase conformance: ${factory.name}`, () => {
    const serial = oneCaseAtATime();
    for (const [name, scenario] of Object.entries(ERASE_SCENARIOS))
      api.it(name, () => serial(() => scenario(factory.create())));
  });
}
