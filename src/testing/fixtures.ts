import type { SessionProvider } from "../session/contracts/provider.js";
import type { SessionMessage } from "../session/contracts/types.js";

/** One append of a fixture: the message and its explicit parent (`null` = a root). */
export interface FixtureStep {
  message: SessionMessage;
  parentId: string | null;
}

/** Messages to append, in order. Build one with `tree()`, `chain()` or `conversation()`. */
export interface Fixture {
  readonly steps: readonly FixtureStep[];
  /** The message ids in insertion order. */
  readonly ids: readonly string[];
}

/**
 * A tree written as nested objects: each key is a message id, its value the children, in
 * insertion order. `{}` is a leaf. Ids must not look like integers ("1"), because JavaScript
 * orders integer-like keys first.
 */
export type TreeShape = { readonly [id: string]: TreeShape };

export interface TreeOptions {
  /** Attach the top-level messages under this stored message instead of making them roots. */
  under?: string;
}

/**
 * A tree appended depth-first, parents before children, siblings in key order. Messages at even
 * depth are `user` messages, the others `assistant`; each text is `text of <id>`.
 *
 * @example
 * ```ts
 * // r → a → {b, c}, then a later branch r → x (x becomes the latest leaf)
 * await build(session, tree({ r: { a: { b: {}, c: {} } } }), tree({ x: {} }, { under: "r" }));
 * ```
 */
export function tree(shape: TreeShape, options: TreeOptions = {}): Fixture {
  const steps: FixtureStep[] = [];
  const visit = (
    level: TreeShape,
    parentId: string | null,
    depth: number,
  ): void => {
    for (const [id, children] of Object.entries(level)) {
      const role = depth % 2 === 0 ? "user" : "assistant";
      steps.push({ message: textMessage(id, `text of ${id}`, role), parentId });
      visit(children, id, depth + 1);
    }
  };
  visit(shape, options.under ?? null, 0);
  return fixture(steps);
}

/**
 * A single branch `<prefix>1 → <prefix>2 → … → <prefix><length>`, alternating user and assistant
 * messages, each with the text `text of <id>`.
 */
export function chain(
  length: number,
  prefix = "m",
  options: TreeOptions = {},
): Fixture {
  return conversation(
    Array.from({ length }, (_, index) => `text of ${prefix}${index + 1}`),
    prefix,
    options,
  );
}

/** A single branch whose messages carry the given texts, with ids `<prefix>1 … <prefix>N`. */
export function conversation(
  texts: readonly string[],
  prefix = "m",
  options: TreeOptions = {},
): Fixture {
  const steps = texts.map((text, index) => ({
    message: textMessage(
      `${prefix}${index + 1}`,
      text,
      index % 2 === 0 ? "user" : "assistant",
    ),
    parentId: index === 0 ? (options.under ?? null) : `${prefix}${index}`,
  }));
  return fixture(steps);
}

/** A message with one text part. */
export function textMessage(
  id: string,
  text = `text of ${id}`,
  role = "user",
): SessionMessage {
  return { id, role, parts: [{ type: "text", text }] };
}

/** A Session or subject (`appendMessage`), or a raw provider (`writeMessages`). */
export type Appendable =
  | {
      appendMessage(message: SessionMessage, parentId?: string | null): unknown;
    }
  | SessionProvider;

/** Appends the fixtures' messages one after another, each with its explicit parent. */
export async function build(
  target: Appendable,
  ...fixtures: Fixture[]
): Promise<void> {
  for (const { steps } of fixtures) {
    for (const step of steps) {
      if (isProvider(target))
        await appendRaw(target, step.message, step.parentId);
      else await target.appendMessage(step.message, step.parentId);
    }
  }
}

/** A provider writes with `writeMessages`; a Session and a subject have none. */
function isProvider(target: Appendable): target is SessionProvider {
  return (
    "writeMessages" in target && typeof target.writeMessages === "function"
  );
}

/**
 * One message through a provider's `writeMessages`, as `appendMessage(message, parentId?)` of the
 * seed API would write it: `true` when a row was inserted, `false` when the id was taken.
 */
export async function appendRaw(
  provider: SessionProvider,
  message: SessionMessage,
  parentId?: string | null,
): Promise<boolean> {
  const result = await provider.writeMessages([{ message }], { parentId });
  return result.inserted[0] === true;
}

/** The ids of messages, for compact path assertions. */
export function ids(messages: readonly { id: string }[]): string[] {
  return messages.map((message) => message.id);
}

// --- Internal helpers ---

function fixture(steps: FixtureStep[]): Fixture {
  return { steps, ids: steps.map((step) => step.message.id) };
}
