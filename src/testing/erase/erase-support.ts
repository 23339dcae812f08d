// What the erase and prune scenarios share: the backend under test, the sessions they write
// (secret text everywhere a session can hold text), and the checks (a scan of everything the
// backend holds). Imports Arbor only, so it also runs bundled inside workerd.
import type {
  EraseCounts,
  SessionManager,
  SessionMessage,
} from "../../session/index.js";
import { zeroCounts } from "../../session/contracts/erase.js";

/** One backend under test: managers over one storage, its audit sink, and a dump of all it holds. */
export interface EraseBackend {
  /** A manager with `withContext("memory")`, `withAudit(sink)` and nothing else. */
  manager(): SessionManager;
  /** Events of one session in the sink. */
  auditCount(sessionId: string): Promise<number> | number;
  /** Every row of every table (index shadow tables included), and the audit sink, as text. */
  dump(): Promise<string> | string;
  /** The same without the audit sink, which keeps what was written by design (for updates). */
  dumpWithoutAudit(): Promise<string> | string;
  /** What the receipts say of the kinds that differ by backend. */
  expects: {
    /** Whether search index rows are separate rows (SQLite FTS5). */
    separateIndex: boolean;
    /** Whether writes leave change-log rows. */
    changeLog: boolean;
    /**
     * Whether the store keeps inline file data apart from its rows, counting an attachment whose
     * last reference goes (`storesAttachments`, as every built-in backend does). Default `true`;
     * `false` for a store that keeps messages as given, where a file goes with its message.
     */
    attachments?: boolean;
  };
}

// --- Writing the sessions ---

/** A session of `owner` holding `secret` everywhere a session can hold text. */
export async function writeSecretSession(
  manager: SessionManager,
  secret: string,
  keep: string,
  owner: string,
): Promise<string> {
  const { id } = await manager.create("secret", { ownerId: owner });
  await manager.setMetadata(id, "topic", `${secret}-meta`);
  await manager.addUsage(id, 10, 20, 0.5);
  const session = manager.getSession(id);
  await session.appendMessage(text("u1", "user", `${secret}-u1 zebra`));
  await session.appendMessage({
    id: "a1",
    role: "assistant",
    parts: [
      { type: "text", text: `${secret}-a1 zebra` },
      toolPart("call-a1", `${secret}-block`),
    ],
  });
  await session.appendMessage({
    id: "u2",
    role: "user",
    parts: [
      { type: "text", text: `${secret}-u2 zebra` },
      filePart(`${secret}-attach`),
      filePart(`${keep}-shared`),
    ],
  });
  const tools = (await session.tools()) as ToolSet;
  await tools.set_context!.execute(
    { label: "memory", content: `${secret}-block` },
    { toolCallId: "call-a1" },
  );
  await session.appendContextBlock("memory", `${secret}-more`);
  // A block created in this session: its definition (a config entry), content row and history.
  await manager.createContextBlock(id, "created", {
    description: `${secret}-created-about`,
    content: `${secret}-created`,
  });
  await session.addCompaction(`${secret}-summary of u1..a1`, "u1", "a1");
  await session.search("zebra");
  await session.flushAudit();
  return id;
}

/** A session that must come through every erase unchanged. */
export async function writeKeptSession(
  manager: SessionManager,
  keep: string,
  owner: string,
): Promise<string> {
  const { id } = await manager.create("kept", { ownerId: owner });
  const session = manager.getSession(id);
  await session.appendMessage(text("u1", "user", `${keep}-c zebra`));
  await session.appendMessage({
    id: "a1",
    role: "assistant",
    parts: [{ type: "text", text: "reply" }, filePart(`${keep}-shared`)],
  });
  await session.addCompaction(`${keep}-csum`, "u1", "a1");
  await session.replaceContextBlock("memory", `${keep}-cblock`);
  await session.search("zebra");
  await session.flushAudit();
  return id;
}

export async function snapshotOf(manager: SessionManager, id: string) {
  const session = manager.getSession(id);
  return {
    info: await manager.get(id),
    history: await session.getHistory(),
    raw: await session.getMessage("a1"),
    overlays: await session.getCompactions(),
    block: await session.getContextBlockHistory("memory"),
    owner: await manager.getOwner(id),
    search: (await session.search("zebra")).map((hit) => hit.id),
  };
}

// --- Checks ---

export async function expectNoTrace(
  backend: EraseBackend,
  secret: string,
  where = "",
): Promise<void> {
  const dump = await backend.dump();
  for (const form of forms(secret)) {
    const at = dump.indexOf(form);
    if (at >= 0)
      throw new Error(
        `${where} trace of "${secret}" left: …${dump.slice(Math.max(0, at - 300), at + 100)}…`,
      );
  }
}

export async function expectTrace(
  backend: EraseBackend,
  texts: readonly string[],
): Promise<void> {
  const dump = await backend.dump();
  for (const text of texts)
    check(
      forms(text).some((form) => dump.includes(form)),
      `"${text}" is still stored`,
    );
}

/** How a text may appear in a dump: as itself, in hex (PostgreSQL bytea), and in base64. */
function forms(text: string): string[] {
  const bytes = new TextEncoder().encode(text);
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  // The lowercase form is how a search index keeps the word (FTS5 segments, tsvectors).
  return [text, text.toLowerCase(), hex, btoa(text).slice(0, -4)];
}

export function expectCounts(
  actual: EraseCounts,
  expected: Partial<EraseCounts>,
): void {
  const want: EraseCounts = { ...zeroCounts(), ...expected };
  const got = Object.fromEntries(
    Object.keys(want).map((key) => [key, actual[key as keyof EraseCounts]]),
  );
  same(got, want, "receipt counts");
}

export function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`expected: ${what}`);
}

export function same(actual: unknown, expected: unknown, what: string): void {
  const [a, b] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== b) throw new Error(`${what}: got ${a}, expected ${b}`);
}

// --- Small helpers ---

export type ToolSet = Record<
  string,
  {
    execute(
      input: unknown,
      options?: { toolCallId?: string },
    ): Promise<unknown>;
  }
>;

let counter = 0;

/** A tag that FTS5 keeps as one token (letters and digits, ending in a digit so no stemmer trims it). */
export function unique(prefix: string): string {
  return `${prefix}x${Date.now().toString(36)}${counter++}`;
}

export function text(
  id: string,
  role: "user" | "assistant",
  body: string,
): SessionMessage {
  return { id, role, parts: [{ type: "text", text: body }] };
}

export function toolPart(toolCallId: string, content: string) {
  return {
    type: "tool-set_context",
    toolCallId,
    state: "output-available",
    input: { label: "memory", content },
    output: "ok",
  };
}

export function filePart(content: string) {
  return {
    type: "file",
    mediaType: "application/octet-stream",
    url: `data:application/octet-stream;base64,${btoa(content)}`,
  };
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Every string, number and byte inside a value (Maps, Sets, typed arrays, class instances), as text. */
export function deepText(value: unknown): string {
  const out: string[] = [];
  const seen = new Set<object>();
  const visit = (item: unknown): void => {
    if (typeof item === "string") out.push(item);
    else if (typeof item === "number" || typeof item === "boolean")
      out.push(String(item));
    else if (item instanceof Uint8Array) out.push(String.fromCharCode(...item));
    else if (item !== null && typeof item === "object") {
      if (seen.has(item)) return;
      seen.add(item);
      if (item instanceof Map)
        for (const [k, v] of item) {
          visit(k);
          visit(v);
        }
      else if (item instanceof Set) for (const v of item) visit(v);
      else if (Array.isArray(item)) item.forEach(visit);
      else
        for (const key of Reflect.ownKeys(item)) {
          if (typeof key === "string") out.push(key);
          visit((item as Record<string | symbol, unknown>)[key]);
        }
    }
  };
  visit(value);
  return out.join("\n");
}

/** The attachments an erase reports: `stored` when the store keeps them apart, else none. */
export function attachmentsOf(backend: EraseBackend, stored: number): number {
  return backend.expects.attachments === false ? 0 : stored;
}
