import type {
  CompactionMeta,
  SessionMessage,
  StoredCompaction,
} from "../contracts/types.js";
import type { Session } from "../facade/session.js";

/**
 * The SessionManager's per-session message and overlay calls, one part of its facade. Each one is
 * the Session method of the same purpose, on the session `getSession(id)` opens; unknown ids read
 * as empty sessions.
 */
export class ManagerMessages {
  /** `getSession`: the manager's Session for an id, configured with its builder settings. */
  constructor(private readonly getSession: (id: string) => Session) {}

  async append(
    id: string,
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<string> {
    await this.getSession(id).appendMessage(message, parentId);
    return message.id;
  }

  /** Updates the message if it exists in the session (parent unchanged), else appends it. */
  async upsert(
    id: string,
    message: SessionMessage,
    parentId?: string | null,
  ): Promise<string> {
    const session = this.getSession(id);
    if (await session.getMessage(message.id))
      await session.updateMessage(message);
    else await session.appendMessage(message, parentId);
    return message.id;
  }

  /**
   * Appends in order, each message under the previous one. The first goes under `parentId`, or
   * under the latest leaf when it is omitted (`null` makes it a root). Returns the last id.
   */
  async appendAll(
    id: string,
    messages: readonly SessionMessage[],
    parentId?: string | null,
  ): Promise<string | null> {
    // One transaction on the built-in stores (Session.appendAll).
    await this.getSession(id).appendAll(messages, parentId);
    return messages.at(-1)?.id ?? parentId ?? null;
  }

  async getHistory(
    id: string,
    leafId?: string | null,
  ): Promise<SessionMessage[]> {
    return this.getSession(id).getHistory(leafId);
  }

  /** The length of the active path (not the total number of rows). */
  async getMessageCount(id: string): Promise<number> {
    return this.getSession(id).getPathLength();
  }

  async clearMessages(id: string): Promise<void> {
    await this.getSession(id).clearMessages();
  }

  async deleteMessages(
    id: string,
    messageIds: readonly string[],
  ): Promise<void> {
    await this.getSession(id).deleteMessages(messageIds);
  }

  async getBranches(id: string, messageId: string): Promise<SessionMessage[]> {
    return this.getSession(id).getBranches(messageId);
  }

  async addCompaction(
    id: string,
    summary: string,
    fromMessageId: string,
    toMessageId: string,
    meta?: CompactionMeta,
  ): Promise<StoredCompaction> {
    return this.getSession(id).addCompaction(
      summary,
      fromMessageId,
      toMessageId,
      meta,
    );
  }

  async getCompactions(id: string): Promise<StoredCompaction[]> {
    return this.getSession(id).getCompactions();
  }

  async removeCompaction(id: string, compactionId: string): Promise<boolean> {
    return this.getSession(id).removeCompaction(compactionId);
  }
}
