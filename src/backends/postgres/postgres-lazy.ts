/**
 * The Postgres backend's queries, loaded with a dynamic `import()` on the first call of a
 * Postgres provider, registry or schema upgrade (docs/behavior/runtime.md, "Bundle size on
 * Workers"): the public classes stay in the entry, their query code is a separate chunk that a
 * Worker without PostgreSQL never loads. A failed load is retried on the next call.
 */
export function postgresOps(): Promise<typeof import("./postgres-ops.js")> {
  loading ??= import("./postgres-ops.js").catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

// --- Internal helpers ---

let loading: Promise<typeof import("./postgres-ops.js")> | undefined;
