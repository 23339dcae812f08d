import { runPostgresConformance } from "./postgres-database.js";

runPostgresConformance({
  name: "PostgresSessionProvider over a pg.Pool",
  connect: (database) => database.pool,
  // 'english' drops stop words ("or", "not") from queries (docs/behavior/search.md#differences-between-backends).
  capabilities: { stopWords: true },
});
