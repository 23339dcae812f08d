// A test stand-in for useChat's transport: posts the bodies useChat posts and reads the SSE
// answer back into chunks. The route helper under test is real; this is only the client side.
import type { ChatHandler } from "../../src/ai-sdk/index.js";

export const BASE = "http://chat.test/api/chat";

export interface Chunk {
  type: string;
  [field: string]: unknown;
}

export interface UIMessageLike {
  id: string;
  role: "user" | "assistant" | "system";
  parts: Array<Record<string, unknown>>;
  metadata?: unknown;
}

export function userMessage(id: string, text: string): UIMessageLike {
  return { id, role: "user", parts: [{ type: "text", text }] };
}

export function post(path: string, body: unknown): Request {
  return new Request(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Reads an SSE response to its end: the chunks, in order. */
export async function readChunks(response: Response): Promise<Chunk[]> {
  const text = await response.text();
  return sseChunks(text);
}

export function sseChunks(text: string): Chunk[] {
  return text
    .split("\n\n")
    .map((event) => event.trim())
    .filter((event) => event.startsWith("data: ") && event !== "data: [DONE]")
    .map((event) => JSON.parse(event.slice("data: ".length)) as Chunk);
}

/** The text the chunks stream. */
export function textOf(chunks: Chunk[]): string {
  return chunks
    .filter((chunk) => chunk.type === "text-delta")
    .map((chunk) => String(chunk.delta))
    .join("");
}

/** A send as useChat makes it, read to the end. */
export async function send(
  chat: ChatHandler,
  ownerId: string,
  body: Record<string, unknown>,
): Promise<{ status: number; chunks: Chunk[] }> {
  const response = await chat.fetch(post("", body), { ownerId });
  if (response.status !== 200) return { status: response.status, chunks: [] };
  return { status: 200, chunks: await readChunks(response) };
}

/**
 * Reads an SSE response until its text so far contains `until` (or `until(chunks)` holds), and
 * returns the rest as a
 * function that reads it to the end (all chunks, from the first).
 */
export async function readUntil(
  response: Response,
  until: string | ((chunks: Chunk[]) => boolean),
): Promise<{ rest(): Promise<Chunk[]>; cancel(): Promise<void> }> {
  const reader = response
    .body!.pipeThrough(new TextDecoderStream())
    .getReader();
  const reached =
    typeof until === "string"
      ? (chunks: Chunk[]) => textOf(chunks).includes(until)
      : until;
  let seen = "";
  while (!reached(sseChunks(seen))) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream ended before the awaited chunk");
    seen += value;
  }
  return {
    async rest() {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return sseChunks(seen);
        seen += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}
