// Path safety for FileSkillProvider. A skill key comes from the model (through `load_context`
// and `set_context`), so it is untrusted input: it must never name a file outside the skill
// directory, neither by its spelling (`..`, absolute paths, backslashes, NUL) nor through a
// symbolic link. Keys are checked by spelling first, then every resolved path is compared, by
// realpath, with the realpath of the directory.
import { lstat, realpath } from "node:fs/promises";
import { isAbsolute, relative, sep } from "node:path";

const MAX_KEY_LENGTH = 1024;
// Control characters (NUL included) and backslashes, which Windows treats as separators.
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f\u007f\\]/;
const WINDOWS_DRIVE = /^[a-zA-Z]:/;

/** The key's path segments, or the reason the key is not acceptable. */
export type ParsedKey =
  { ok: true; segments: string[] } | { ok: false; reason: string };

/**
 * Checks a key's spelling. Accepted: "/"-separated names, none empty, none starting with "."
 * (which rules out `.` and `..` and hidden files), no leading "/", drive letter, backslash or
 * control character. Percent signs are ordinary characters: `%2e%2e` is a literal name.
 */
export function parseKey(key: unknown, nested: boolean): ParsedKey {
  if (typeof key !== "string" || key.length === 0)
    return { ok: false, reason: "a key must be a non-empty string" };
  if (key.length > MAX_KEY_LENGTH)
    return {
      ok: false,
      reason: `a key is at most ${MAX_KEY_LENGTH} characters`,
    };
  if (FORBIDDEN_CHARACTERS.test(key))
    return {
      ok: false,
      reason: "backslashes and control characters are not allowed",
    };
  if (key.startsWith("/") || WINDOWS_DRIVE.test(key))
    return { ok: false, reason: "absolute paths are not allowed" };
  const segments = key.split("/");
  if (segments.some((segment) => segment === "" || segment.startsWith(".")))
    return {
      ok: false,
      reason:
        'empty segments and segments starting with "." (such as "..") are not allowed',
    };
  if (!nested && segments.length > 1)
    return {
      ok: false,
      reason: "nested keys need the option `recursive: true`",
    };
  return { ok: true, segments };
}

/** True when `path` is `root` itself (if `orEqual`) or lies below it. Both must be real paths. */
export function isInside(root: string, path: string, orEqual = false): boolean {
  const rel = relative(root, path);
  if (rel === "") return orEqual;
  return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The realpath of `path`, or `null` when it (or a link on the way) does not resolve. */
export async function realpathOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** True when something (a file, a folder, a link, even a dangling one) exists at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

export function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP";
}
