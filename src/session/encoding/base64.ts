/**
 * Standard base64 (RFC 4648, with padding) over bytes, in plain JavaScript: the session's code
 * loads in workerd, where `Buffer` is not available, and `atob`/`btoa` go through binary strings.
 */
export function encodeBase64(bytes: Uint8Array): string {
  // ASCII codes into one buffer, decoded once: string concatenation is far slower on megabytes.
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let at = 0;
  let index = 0;
  for (; index + 2 < bytes.length; index += 3) {
    const triple =
      (bytes[index]! << 16) | (bytes[index + 1]! << 8) | bytes[index + 2]!;
    out[at++] = CODES[triple >>> 18]!;
    out[at++] = CODES[(triple >>> 12) & 63]!;
    out[at++] = CODES[(triple >>> 6) & 63]!;
    out[at++] = CODES[triple & 63]!;
  }
  const left = bytes.length - index;
  if (left > 0) {
    const value =
      (bytes[index]! << 16) | (left === 2 ? bytes[index + 1]! << 8 : 0);
    out[at++] = CODES[value >>> 18]!;
    out[at++] = CODES[(value >>> 12) & 63]!;
    out[at++] = left === 2 ? CODES[(value >>> 6) & 63]! : PAD;
    out[at++] = PAD;
  }
  return ASCII.decode(out);
}

/**
 * The bytes of canonical base64 text, or `null` when the text is not exactly what
 * `encodeBase64` would write for them (bad characters, whitespace, missing padding, stray bits):
 * such text could not be restored byte for byte.
 */
export function decodeBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const bytes = new Uint8Array((text.length / 4) * 3 - padding);
  let out = 0;
  for (let index = 0; index < text.length; index += 4) {
    const a = VALUES[text.charCodeAt(index)] ?? -1;
    const b = VALUES[text.charCodeAt(index + 1)] ?? -1;
    const last = index + 4 === text.length;
    const c =
      last && padding === 2 ? 0 : (VALUES[text.charCodeAt(index + 2)] ?? -1);
    const d =
      last && padding > 0 ? 0 : (VALUES[text.charCodeAt(index + 3)] ?? -1);
    if ((a | b | c | d) < 0) return null;
    const triple = (a << 18) | (b << 12) | (c << 6) | d;
    bytes[out++] = triple >>> 16;
    if (out < bytes.length) bytes[out++] = (triple >>> 8) & 255;
    else if ((triple & 0xffff) !== 0) return null;
    if (out < bytes.length) bytes[out++] = triple & 255;
    else if (padding === 1 && last && (triple & 0xff) !== 0) return null;
  }
  return bytes;
}

// --- Internal helpers ---

const ALPHABET =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

const CODES = new TextEncoder().encode(ALPHABET);
const PAD = "=".charCodeAt(0);
const ASCII = new TextDecoder();

const VALUES: Int16Array = (() => {
  const values = new Int16Array(256).fill(-1);
  for (let index = 0; index < ALPHABET.length; index++)
    values[ALPHABET.charCodeAt(index)] = index;
  return values;
})();
