/**
 * A UUID-shaped id from a SHA-256 hex digest: the first 128 bits, version nibble 8 (RFC 9562
 * custom) and the RFC variant bits. Ids derived from what a retry repeats (an Idempotency-Key, a
 * fork's `newId`) so that the retry writes the same ids as its first attempt.
 */
export function uuidFromHex(hex: string): string {
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
