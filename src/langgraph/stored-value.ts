import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { decodeBase64, encodeBase64 } from "../session/encoding/base64.js";
import { ArborError } from "../session/index.js";

/**
 * What the saver's serializer produced for one value, as a config entry can hold it (a string):
 * the serializer's type tag and its bytes, kept as UTF-8 text when they are JSON text (readable in
 * the store, and what `JsonPlusSerializer` gives for nearly everything) and as base64 otherwise.
 * Either way the bytes read back are the bytes written: nothing is re-encoded or interpreted.
 */
export interface StoredValue {
  readonly type: string;
  readonly text?: string;
  readonly base64?: string;
}

/** The type tag of a channel version that holds no value (written as absent). */
export const EMPTY_TYPE = "empty";

/** The value through `serde`, kept as its bytes. */
export async function storeValue(
  serde: SerializerProtocol,
  value: unknown,
): Promise<StoredValue> {
  const [type, bytes] = await serde.dumpsTyped(value);
  const text = textOf(type, bytes);
  return text === null ? { type, base64: encodeBase64(bytes) } : { type, text };
}

/** The value `storeValue()` kept, through `serde` again. */
export async function loadValue(
  serde: SerializerProtocol,
  stored: StoredValue,
): Promise<unknown> {
  if (stored.text !== undefined)
    return serde.loadsTyped(stored.type, stored.text);
  const bytes = decodeBase64(stored.base64 ?? "");
  if (bytes === null)
    throw new ArborError(
      "STORAGE_ERROR",
      "[arbor] [langgraph] a stored checkpoint value is not valid base64: the entry was changed outside the saver",
    );
  return serde.loadsTyped(stored.type, bytes);
}

// --- Internal helpers ---

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The bytes as text when they are JSON the text round-trips exactly: valid UTF-8, no NUL
 * (PostgreSQL's `text` refuses it), no byte-order mark (a decoder would drop it).
 */
function textOf(type: string, bytes: Uint8Array): string | null {
  if (type !== "json" || bytes[0] === 0xef) return null;
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
  return text.includes("\u0000") ? null : text;
}
