/** UTF-8 byte length of a string, without allocating an encoded copy. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        index++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Whether `text` takes at most `maxBytes` in UTF-8. A UTF-16 unit is 1 to 3 bytes (a surrogate
 * pair 4 for two), so the exact count, a pass over every character, is needed only when the
 * length is within a factor of three of the bound: an append checks the row limit this way, and
 * nearly every message is far under it.
 */
export function fitsUtf8(text: string, maxBytes: number): boolean {
  if (text.length * 3 <= maxBytes) return true;
  if (text.length > maxBytes) return false;
  return utf8Length(text) <= maxBytes;
}
