import {
  executeConnection,
  runPostgresConformance,
} from "./postgres-database.js";

runPostgresConformance({
  name: "PostgresSessionProvider over an execute-style connection",
  connect: (database) => executeConnection(database.pool),
  capabilities: { stopWords: true },
});
