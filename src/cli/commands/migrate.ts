import {
  applyPostgresSchema,
  postgresSchemaSql,
} from "../../postgres/index.js";
import { stringOption, UsageError, type CommandSpec } from "../args.js";
import { openPostgresPool } from "../store.js";

/** `arbor migrate`: prints or applies the PostgreSQL schema, API key table included. */
export const migrateCommand: CommandSpec = {
  name: "migrate",
  summary:
    "Print or apply the PostgreSQL schema (sessions, search, blocks and API keys).",
  usage: "[--postgres <url>] [--print]",
  positionals: { min: 0, max: 0 },
  details:
    "Applying is idempotent and takes an advisory lock, so it is safe to run on every deploy.\nSQLite databases need no migration: they are set up on first use.",
  options: {
    postgres: {
      type: "string",
      value: "url",
      description: "the database (or $DATABASE_URL)",
    },
    print: {
      type: "boolean",
      description: "print the SQL instead of applying it",
    },
    "text-search": {
      type: "string",
      value: "config",
      description: "text-search configuration: english (default), simple, …",
    },
  },
  run: async (command) => {
    const textSearch = stringOption(command, "text-search");
    const { POSTGRES_API_KEYS_SQL } = await import("../../server/index.js");
    const schemaOptions = textSearch ? { textSearchConfig: textSearch } : {};
    if (command.values.print) {
      process.stdout.write(
        `${postgresSchemaSql(schemaOptions)}\n${POSTGRES_API_KEYS_SQL}\n`,
      );
      return;
    }
    const url = stringOption(command, "postgres") ?? process.env.DATABASE_URL;
    if (!url) {
      throw new UsageError(
        "arbor migrate needs --postgres <url> (or DATABASE_URL); --print shows the SQL",
      );
    }
    const pool = await openPostgresPool(url);
    try {
      const { version, textSearchConfig } = await applyPostgresSchema(
        pool,
        schemaOptions,
      );
      await pool.query(POSTGRES_API_KEYS_SQL, []);
      console.log(
        `PostgreSQL schema version ${version} applied (text search '${textSearchConfig}'), API key table ready.`,
      );
    } finally {
      await pool.end();
    }
  },
};
