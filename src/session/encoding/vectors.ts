/** Vector helpers shared by every backend: normalization, cosine, byte encoding. */

/** The vector as float32, scaled to length 1 (a zero vector stays zero). */
export function normalized(values: readonly number[]): Float32Array {
  let sum = 0;
  for (const v of values) sum += v * v;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(values.length);
  if (norm === 0) return out;
  for (let i = 0; i < values.length; i++) out[i] = values[i]! / norm;
  return out;
}

/** Dot product; for normalized vectors, the cosine similarity. */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** The little-endian float32 bytes of a vector (what SQLite stores and sqlite-vec reads). */
export function toBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(
    vector.buffer.slice(
      vector.byteOffset,
      vector.byteOffset + vector.byteLength,
    ),
  );
}

/** A vector back from stored bytes (a Buffer, Uint8Array or ArrayBuffer). */
export function fromBytes(value: unknown): Float32Array {
  if (value instanceof ArrayBuffer) return new Float32Array(value.slice(0));
  if (ArrayBuffer.isView(value)) {
    const length = Math.floor(value.byteLength / 4);
    // An aligned view is read in place; an unaligned one is copied first.
    if (value.byteOffset % 4 === 0)
      return new Float32Array(value.buffer, value.byteOffset, length);
    const bytes = new Uint8Array(value.buffer, value.byteOffset, length * 4);
    return new Float32Array(bytes.slice().buffer);
  }
  return new Float32Array(0);
}
