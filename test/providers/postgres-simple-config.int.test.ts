import { runPostgresConformance } from "./postgres-database.js";

runPostgresConformance({
  name: "PostgresSessionProvider with textSearchConfig 'simple'",
  connect: (database) => database.pool,
  textSearchConfig: "simple",
  // 'simple' neither stems nor drops stop words.
  capabilities: { stemming: false, lightStemming: false },
});
