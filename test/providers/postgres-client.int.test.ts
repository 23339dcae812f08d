import { runPostgresConformance } from "./postgres-database.js";

runPostgresConformance({
  name: "PostgresSessionProvider over one pg.Client",
  connect: (database) => database.client(),
  capabilities: { stopWords: true },
});
