// What `require("arbor-memory…")` loads: the package is ES modules only (package.json "exports",
// the "require" condition), and without this file Node 20 would answer with a bare
// ERR_REQUIRE_ESM or ERR_PACKAGE_PATH_NOT_EXPORTED that does not say what to do instead.
"use strict";
const error = new Error(
  '[arbor] arbor-memory is an ES module package and cannot be loaded with require(). Use `import { Session } from "arbor-memory/session"` (or "arbor-memory"), or from CommonJS `const { Session } = await import("arbor-memory/session")`.',
);
error.code = "ERR_REQUIRE_ESM";
throw error;
