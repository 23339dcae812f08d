import { invalidImport } from "./import-error.js";

/**
 * Random access to the bytes of a file: the CLI reads a file on disk, the server a request body.
 * The zip reader asks only for the directory and then streams one entry, so memory stays bounded.
 */
export interface ByteSource {
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** One file of a zip archive, as its central directory describes it. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/** A byte source over bytes in memory. */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: async (offset, length) => bytes.subarray(offset, offset + length),
  };
}

/** Whether bytes start like a zip archive (a local file header, `PK\x03\x04`). */
export function isZip(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    bytes[2] === 0x03 &&
    bytes[3] === 0x04
  );
}

/** The files of a zip archive (ZIP64 included), from its central directory. */
export async function zipEntries(source: ByteSource): Promise<ZipEntry[]> {
  const tailLength = Math.min(source.size, 22 + 0xffff);
  const tail = await source.read(source.size - tailLength, tailLength);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let end = -1;
  for (let index = tail.length - 22; index >= 0; index--)
    if (view.getUint32(index, true) === 0x06054b50) {
      end = index;
      break;
    }
  if (end < 0) throw invalidZip("no end of central directory");
  let count = view.getUint16(end + 10, true);
  let directorySize = view.getUint32(end + 12, true);
  let directoryOffset = view.getUint32(end + 16, true);
  if (directoryOffset === 0xffffffff || count === 0xffff) {
    // ZIP64: a locator just before the end record points at the 64-bit end record.
    const locator = end - 20;
    if (locator < 0 || view.getUint32(locator, true) !== 0x07064b50)
      throw invalidZip("a ZIP64 archive without its locator");
    const recordOffset = Number(view.getBigUint64(locator + 8, true));
    const record = await source.read(recordOffset, 56);
    const recordView = new DataView(record.buffer, record.byteOffset, 56);
    if (recordView.getUint32(0, true) !== 0x06064b50)
      throw invalidZip("a ZIP64 archive without its end record");
    count = Number(recordView.getBigUint64(32, true));
    directorySize = Number(recordView.getBigUint64(40, true));
    directoryOffset = Number(recordView.getBigUint64(48, true));
  }
  const directory = await source.read(directoryOffset, directorySize);
  const entries = new DataView(
    directory.buffer,
    directory.byteOffset,
    directory.byteLength,
  );
  const decoder = new TextDecoder();
  const found: ZipEntry[] = [];
  let at = 0;
  for (let index = 0; index < count; index++) {
    if (
      at + 46 > directory.length ||
      entries.getUint32(at, true) !== 0x02014b50
    )
      throw invalidZip("a broken central directory");
    const flags = entries.getUint16(at + 8, true);
    const nameLength = entries.getUint16(at + 28, true);
    const extraLength = entries.getUint16(at + 30, true);
    const commentLength = entries.getUint16(at + 32, true);
    const entry: ZipEntry = {
      name: decoder.decode(directory.subarray(at + 46, at + 46 + nameLength)),
      method: entries.getUint16(at + 10, true),
      compressedSize: entries.getUint32(at + 20, true),
      size: entries.getUint32(at + 24, true),
      localHeaderOffset: entries.getUint32(at + 42, true),
    };
    if ((flags & 1) !== 0) throw invalidZip(`"${entry.name}" is encrypted`);
    readZip64Extra(entries, at + 46 + nameLength, extraLength, entry);
    found.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return found;
}

/** The uncompressed bytes of one entry, read from the source in chunks. */
export async function zipEntryStream(
  source: ByteSource,
  entry: ZipEntry,
  chunkSize = 1024 * 1024,
): Promise<ReadableStream<Uint8Array>> {
  const header = await source.read(entry.localHeaderOffset, 30);
  const view = new DataView(header.buffer, header.byteOffset, 30);
  if (view.getUint32(0, true) !== 0x04034b50)
    throw invalidZip(`no local header for "${entry.name}"`);
  const start =
    entry.localHeaderOffset +
    30 +
    view.getUint16(26, true) +
    view.getUint16(28, true);
  let position = 0;
  const raw = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (position >= entry.compressedSize) return controller.close();
      const length = Math.min(chunkSize, entry.compressedSize - position);
      // A copy: the source may hand out a view it reuses.
      controller.enqueue((await source.read(start + position, length)).slice());
      position += length;
    },
  });
  if (entry.method === 0) return raw;
  if (entry.method === 8)
    return raw.pipeThrough(new DecompressionStream("deflate-raw"));
  throw invalidZip(
    `"${entry.name}" uses compression method ${entry.method}; only stored and deflated files are read`,
  );
}

// --- Internal helpers ---

function invalidZip(problem: string) {
  return invalidImport(null, `not a zip archive Arbor can read: ${problem}`);
}

/** ZIP64 sizes and offset, for the fields the 32-bit header marks as `0xffffffff`. */
function readZip64Extra(
  view: DataView,
  start: number,
  length: number,
  entry: ZipEntry,
): void {
  for (let at = start; at + 4 <= start + length;) {
    const id = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => {
        const value = Number(view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localHeaderOffset === 0xffffffff)
        entry.localHeaderOffset = next();
      return;
    }
    at += 4 + size;
  }
}
