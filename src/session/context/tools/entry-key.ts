/**
 * The key of a keyed entry written through `set_context` (docs/behavior/context-blocks.md): the slug of
 * `metadata.title` when given, so the same title updates the same entry; otherwise the slug of
 * the content plus its hash, so identical content maps to one entry.
 */
export function entryKey(content: string, title?: string): string {
  if (typeof title === "string" && title.trim() !== "") {
    return slug(title) || `entry-${fnv1a(title)}`;
  }
  return `${slug(content) || "entry"}-${fnv1a(content)}`;
}

/** First 60 characters, lower case, runs outside [a-z0-9] as "-", one leading/trailing "-" removed. */
export function slug(text: string): string {
  return text
    .slice(0, 60)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-/, "")
    .replace(/-$/, "");
}

/** 32-bit FNV-1a over UTF-16 code units, unsigned, base 36. */
export function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
