import { resolve } from "node:path";
import {
  applyPostgresSchema,
  postgresSchemaSql,
} from "../../postgres/index.js";
import { stringOption, UsageError, type CommandSpec } from "../args.js";
import { migrateSqliteFile, openPostgresPool } from "../store.js";

/** What `arbor migrate --db` says it found, by schema state. */
const SQLITE_BEFORE = {
  current: "already at",
  outdated: "migrated to",
  absent: "created at",
} as const;

/** `arbor migrate`: prints or applies the PostgreSQL schema, API key table included; or brings a SQLite file up to date. */
export const migrateCommand: CommandSpec = {
  name: "migrate",
  summary:
    "Print or apply the PostgreSQL schema, or bring a SQLite database to this Arbor's schema.",
  usage: "[--postgres <url>] [--print] | --db <file>",
  positionals: { min: 0, max: 0 },
  details:
    "Applying is idempotent and takes an advisory lock, so it is safe to run on every deploy.\nA SQLite database is set up by its first write (arbor import, serve, mcp); --db <file> applies\nthe steps an older Arbor's file (or one of agents@0.22 or agents@0.32) needs, which the reading\ncommands (sessions list, search, tree, history, export) never do themselves.",
  options: {
    db: {
      type: "string",
      value: "file",
      description: "an existing SQLite database to bring up to date",
    },
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
    const db = stringOption(command, "db");
    if (db !== undefined) {
      if (stringOption(command, "postgres") !== undefined)
        throw new UsageError(
          "arbor migrate takes --db <file> or --postgres <url>, not both",
        );
      const file = resolve(db);
      const { before, version } = migrateSqliteFile(file);
      console.log(
        `SQLite schema ${SQLITE_BEFORE[before]} version ${version}: ${file}`,
      );
      return;
    }
    const url = stringOption(command, "postgres") ?? process.env.DATABASE_URL;
    if (!url) {
      throw new UsageError(
        "arbor migrate needs --postgres <url> (or DATABASE_URL), or --db <file> for SQLite; --print shows the PostgreSQL SQL",
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
