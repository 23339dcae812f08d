// The SessionManager suite on PostgreSQL over postgres.js (the `postgres` package): through the
// execute-style adapter docs/postgres.md prints, and with a postgres.js `sql` passed as it is
// (transactions through `sql.begin`). Each runner uses its own throwaway database.
import { documentedPostgresJsConnection } from "../providers/postgres-database.js";
import { runPostgresManagerConformance } from "./support/postgres-manager.js";

runPostgresManagerConformance(
  "PostgreSQL over postgres.js (documented execute adapter)",
  (database) => documentedPostgresJsConnection(database.postgresJs()),
);

runPostgresManagerConformance(
  "PostgreSQL over a postgres.js sql instance",
  (database) => database.postgresJs(),
);
