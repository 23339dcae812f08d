import { ArborError } from "../errors/index.js";
import type { SessionSnapshot } from "../contracts/session-info.js";

/** Throws `INVALID_SNAPSHOT` unless the value is a snapshot this Arbor can read. */
export function assertSnapshot(
  value: unknown,
): asserts value is SessionSnapshot {
  const snapshot = value as Partial<SessionSnapshot> | null;
  if (
    typeof snapshot !== "object" ||
    snapshot === null ||
    snapshot.format !== "arbor.session"
  ) {
    throw new ArborError(
      "INVALID_SNAPSHOT",
      '[arbor] Not an Arbor session snapshot (format must be "arbor.session")',
    );
  }
  if (snapshot.version !== 1) {
    throw new ArborError(
      "INVALID_SNAPSHOT",
      `[arbor] Unsupported snapshot version ${String(snapshot.version)}; this Arbor reads version 1`,
    );
  }
  if (
    !Array.isArray(snapshot.messages) ||
    !Array.isArray(snapshot.compactions)
  ) {
    throw new ArborError(
      "INVALID_SNAPSHOT",
      "[arbor] A snapshot needs `messages` and `compactions` arrays",
    );
  }
  const leaf = snapshot.activeLeafId;
  if (leaf !== undefined && leaf !== null && typeof leaf !== "string") {
    throw new ArborError(
      "INVALID_SNAPSHOT",
      "[arbor] A snapshot's `activeLeafId` must be a message id or null",
    );
  }
}

/** HMAC-SHA256 (hex) of the snapshot's canonical JSON, without its signature. WebCrypto: Node and workerd. */
export async function signSnapshot(
  snapshot: SessionSnapshot,
  key: string,
): Promise<string> {
  const { signature: _ignored, ...unsigned } = snapshot;
  const encoder = new TextEncoder();
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    encoder.encode(key),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    cryptoKey,
    encoder.encode(canonicalJson(unsigned)),
  );
  return [...new Uint8Array(mac)]
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("");
}

/** Throws `INVALID_SNAPSHOT` when the signature is missing or wrong. */
export async function verifySnapshot(
  snapshot: SessionSnapshot,
  key: string,
): Promise<void> {
  const expected = await signSnapshot(snapshot, key);
  if (
    typeof snapshot.signature !== "string" ||
    !constantTimeEqual(snapshot.signature, expected)
  ) {
    throw new ArborError(
      "INVALID_SNAPSHOT",
      "[arbor] The snapshot signature is missing or does not match",
    );
  }
}

// --- Internal helpers ---

/** JSON with object keys sorted, so the signature does not depend on key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner && typeof inner === "object" && !Array.isArray(inner)) {
      return Object.fromEntries(
        Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }
    return inner;
  });
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++)
    difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}
