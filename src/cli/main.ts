#!/usr/bin/env node
/**
 * The `arbor` command: serve the HTTP API and MCP, manage API keys, browse, search, import and export
 * sessions, apply the PostgreSQL schema and chat in the terminal. Node only; not a package export.
 *
 * @module
 */
import { main } from "./run.js";

process.exitCode = await main(process.argv.slice(2));
