import type {
  MessageWrite,
  SeedSessionProvider,
  SessionProvider,
  WriteMessagesOptions,
  WriteMessagesResult,
} from "../contracts/provider.js";
import { encodeMessage } from "../messages/message-codec.js";
import { ArborTypeError } from "../errors/index.js";

/**
 * A provider as the Session writes to it: one with `writeMessages` as it is, a seed-shaped one
 * (`appendMessage(message, parentId?)` returning `boolean | void`, no `writeMessages`) behind a
 * view that adds `writeMessages` on top of its `appendMessage`. Everything else of the provider
 * reads through unchanged, and the provider object itself is never modified.
 *
 * The seed contract has no batch write, so the adapted `writeMessages` makes one `appendMessage`
 * per message, each under the one before it: atomic per message, not across a batch. It resolves
 * the first parent itself before the first insert (the latest leaf, or whether a given parent is
 * in the session), because `appendMessage` does not say where the row went.
 */
export function adaptSeedProvider(
  provider: SessionProvider | SeedSessionProvider,
): SessionProvider {
  if (typeof provider.writeMessages === "function") return provider;
  const seed = provider;
  const writeMessages = (
    messages: readonly MessageWrite[],
    options: WriteMessagesOptions = {},
  ): Promise<WriteMessagesResult> => writeOneByOne(seed, messages, options);
  // Sessions over the same seed provider share its append lock: the view answers the provider's
  // identity, not its own.
  const identity = seed.storeIdentity ?? seed;
  // The target only carries the type: every member is read from `seed`.
  return new Proxy({} as SessionProvider, {
    get(_, name) {
      if (name === "writeMessages") return writeMessages;
      if (name === "storeIdentity") return identity;
      // Its writes check no registry and no parent, and move no roots, whatever it declares.
      if (
        name === "insertChecksRegistry" ||
        name === "insertChecksParent" ||
        name === "importReattaches"
      )
        return false;
      if (name === "forSession" && typeof seed.forSession === "function")
        return (sessionId: string) =>
          adaptSeedProvider(seed.forSession!(sessionId));
      const member: unknown = Reflect.get(seed, name, seed);
      return typeof member === "function"
        ? (member as (...args: unknown[]) => unknown).bind(seed)
        : member;
    },
    has(_, name) {
      return name === "writeMessages" || Reflect.has(seed, name);
    },
  });
}

/** `writeMessages` over a seed provider: one `appendMessage` per message, in order. */
async function writeOneByOne(
  seed: SeedSessionProvider,
  messages: readonly MessageWrite[],
  options: WriteMessagesOptions,
): Promise<WriteMessagesResult> {
  // A raw call may bring unchecked messages: all are checked before the first write.
  for (const entry of messages)
    if (entry.json === undefined) encodeMessage(entry.message);
  if (options.requireRegistered) {
    throw new ArborTypeError(
      "NOT_SUPPORTED",
      "[arbor] A seed-shaped provider's appendMessage cannot check the registry",
    );
  }
  const { parentId } = options;
  const firstParentId =
    parentId === undefined
      ? await latestLeafId(seed)
      : typeof parentId === "string" &&
          (await seed.getMessage(parentId)) !== null
        ? parentId
        : null;
  const inserted: boolean[] = [];
  let parent: string | null = firstParentId;
  for (const { message } of messages) {
    inserted.push((await seed.appendMessage(message, parent)) !== false);
    parent = message.id;
  }
  return { inserted, firstParentId };
}

async function latestLeafId(seed: SeedSessionProvider): Promise<string | null> {
  if (seed.getLatestLeafId) return (await seed.getLatestLeafId()) ?? null;
  return (await seed.getLatestLeaf())?.id ?? null;
}
