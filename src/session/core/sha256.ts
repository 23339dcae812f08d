/**
 * SHA-256 in plain JavaScript, synchronous. The SQL-tag store writes inside synchronous
 * transactions (Durable Objects, better-sqlite3), where WebCrypto's asynchronous `digest` cannot
 * run, and core code must load in workerd, so `node:crypto` is not an option either.
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

const INITIAL_STATE = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c,
  0x1f83d9ab, 0x5be0cd19,
];

const ROUND_CONSTANTS = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
  0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
  0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

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
