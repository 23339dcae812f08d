/**
 * Node-only file-system pieces, kept off `arbor-memory/session`'s load path so that
 * one stays loadable in workerd. `FileSkillProvider` serves a directory of Markdown files as a
 * skill block.
 *
 * @example
 * ```ts
 * import { Session } from "arbor-memory/session";
 * import { openSqlite } from "arbor-memory/sqlite";
 * import { FileSkillProvider } from "arbor-memory/fs";
 *
 * const session = Session.create(openSqlite("memory.db")).withContext("skills", {
 *   description: "Playbooks; load one when the task needs it",
 *   provider: new FileSkillProvider("./skills"),
 * });
 * ```
 *
 * @module arbor-memory/fs
 */
export {
  FileSkillProvider,
  type FileSkillProviderOptions,
} from "./file-skill-provider.js";
