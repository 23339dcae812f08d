/**
 * @module `arbor/fs`: Node-only file-system pieces, kept off `arbor/session`'s load path so that
 * one stays loadable in workerd. `FileSkillProvider` serves a directory of Markdown files as a
 * skill block.
 *
 * @example
 * ```ts
 * import { Session } from "arbor/session";
 * import { openSqlite } from "arbor/sqlite";
 * import { FileSkillProvider } from "arbor/fs";
 *
 * const session = Session.create(openSqlite("memory.db")).withContext("skills", {
 *   description: "Playbooks; load one when the task needs it",
 *   provider: new FileSkillProvider("./skills"),
 * });
 * ```
 */
export {
  FileSkillProvider,
  type FileSkillProviderOptions,
} from "./file-skill-provider.js";
