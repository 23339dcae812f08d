/**
 * SHA-256 in plain JavaScript, synchronous. The SQL-tag store writes inside synchronous
 * transactions (Durable Objects, better-sqlite3), where WebCrypto's asynchronous `digest` cannot
 * run, and the session's code must load in workerd, so `node:crypto` is not an option either.
 */
export function sha256Hex(bytes: Uint8Array): string {
  const state = Uint32Array.from(INITIAL_STATE);
  const words = new Uint32Array(64);
  const fullBlocks = Math.floor(bytes.length / 64);
  for (let block = 0; block < fullBlocks; block++)
    compress(state, words, bytes, block * 64);

  // The tail: the remaining bytes, the 0x80 marker, zero padding and the bit length.
  const rest = bytes.length - fullBlocks * 64;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(bytes.subarray(fullBlocks * 64));
  tail[rest] = 0x80;
  const bitLength = bytes.length * 8;
  const view = new DataView(tail.buffer);
  view.setUint32(tail.length - 8, Math.floor(bitLength / 0x100000000));
  view.setUint32(tail.length - 4, bitLength >>> 0);
  for (let offset = 0; offset < tail.length; offset += 64)
    compress(state, words, tail, offset);

  let hex = "";
  for (const word of state) hex += word.toString(16).padStart(8, "0");
  return hex;
}

// --- Internal helpers ---

/**
 * FIPS 180-4's constants, computed rather than listed: the first 32 bits of the fractional parts
 * of the square roots of the first 8 primes (the initial state) and of the cube roots of the
 * first 64 primes (the round constants). These roots are below 8, so a double holds 50 bits
 * past the point, and none of them has bits 33 to 40 all zero or all one: a last-bit error of
 * `Math.cbrt` cannot change the 32 kept. The tests against `node:crypto` cover every constant.
 */
const PRIMES: number[] = [];
for (let candidate = 2; PRIMES.length < 64; candidate++)
  if (PRIMES.every((prime) => candidate % prime !== 0)) PRIMES.push(candidate);

const INITIAL_STATE = Uint32Array.from(
  PRIMES.slice(0, 8),
  (prime) => (Math.sqrt(prime) % 1) * 2 ** 32,
);

const ROUND_CONSTANTS = Uint32Array.from(
  PRIMES,
  (prime) => (Math.cbrt(prime) % 1) * 2 ** 32,
);

/** One 64-byte block of `source` at `offset` folded into `state`. */
function compress(
  state: Uint32Array,
  words: Uint32Array,
  source: Uint8Array,
  offset: number,
): void {
  for (let index = 0; index < 16; index++) {
    const at = offset + index * 4;
    words[index] =
      (source[at]! << 24) |
      (source[at + 1]! << 16) |
      (source[at + 2]! << 8) |
      source[at + 3]!;
  }
  for (let index = 16; index < 64; index++) {
    const early = words[index - 15]!;
    const late = words[index - 2]!;
    const sigma0 =
      rotateRight(early, 7) ^ rotateRight(early, 18) ^ (early >>> 3);
    const sigma1 =
      rotateRight(late, 17) ^ rotateRight(late, 19) ^ (late >>> 10);
    words[index] =
      (words[index - 16]! + sigma0 + words[index - 7]! + sigma1) | 0;
  }
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  let e = state[4]!;
  let f = state[5]!;
  let g = state[6]!;
  let h = state[7]!;
  for (let index = 0; index < 64; index++) {
    const sum1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25);
    const choice = (e & f) ^ (~e & g);
    const temp1 =
      (h + sum1 + choice + ROUND_CONSTANTS[index]! + words[index]!) | 0;
    const sum0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22);
    const majority = (a & b) ^ (a & c) ^ (b & c);
    const temp2 = (sum0 + majority) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + temp1) | 0;
    d = c;
    c = b;
    b = a;
    a = (temp1 + temp2) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
}

function rotateRight(value: number, bits: number): number {
  return (value >>> bits) | (value << (32 - bits));
}
