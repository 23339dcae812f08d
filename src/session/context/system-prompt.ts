import type { ContextBlocks } from "./context-blocks.js";
import { renderSystemPrompt } from "./render-prompt.js";
import type { PromptStore, SystemPromptReading } from "./types.js";

/**
 * The frozen system prompt (docs/behavior/context-blocks.md): rendered once and kept identical through a conversation,
 * so provider prefix caches stay warm. Block writes reach it only on `refresh()`. With a store
 * the frozen prompt survives restarts.
 */
export class SystemPrompt {
  private frozen: string | null = null;
  /** Told each time a prompt is rendered and frozen, or refreshed (audit). */
  onRendered:
    ((prompt: string, reason: "freeze" | "refresh") => void) | undefined;

  constructor(
    private readonly blocks: ContextBlocks,
    private readonly store: PromptStore | null,
  ) {}

  /** The stored prompt if any, else the in-memory snapshot, rendered and persisted on first use. */
  async freeze(): Promise<string> {
    if (this.store) {
      const stored = await this.store.get();
      if (stored !== null) {
        this.frozen = stored;
        return stored;
      }
    }
    if (this.frozen === null) {
      await this.blocks.load();
      this.frozen = renderSystemPrompt(this.blocks.loadedBlocks());
      this.onRendered?.(this.frozen, "freeze");
    }
    await this.store?.set(this.frozen);
    return this.frozen;
  }

  /** The persisted prompt, or `null` without a store or before the first freeze. */
  async stored(): Promise<string | null> {
    return this.store ? this.store.get() : null;
  }

  /** Makes `prompt` the frozen prompt and persists it (snapshot import). */
  async restore(prompt: string): Promise<void> {
    this.frozen = prompt;
    await this.store?.set(prompt);
  }

  /** Reloads every block, re-renders, replaces the snapshot and persists it. */
  async refresh(): Promise<string> {
    await this.blocks.load(true);
    this.frozen = renderSystemPrompt(this.blocks.loadedBlocks());
    await this.store?.set(this.frozen);
    this.onRendered?.(this.frozen, "refresh");
    return this.frozen;
  }

  /**
   * Both prompts without writing anything (docs/behavior/context-blocks.md): `frozen`, the stored
   * prompt or this object's snapshot (`null` when none was frozen), and `current`, a render of the
   * blocks as their providers hold them now (what a `refresh()` would freeze). Reading must never
   * freeze: a freeze decides what the next turn sends, so only the turn (or an explicit call) may.
   */
  async read(): Promise<SystemPromptReading> {
    const stored = this.store ? await this.store.get() : null;
    await this.blocks.load(true);
    return {
      current: renderSystemPrompt(this.blocks.loadedBlocks()),
      frozen: stored ?? this.frozen,
    };
  }

  /**
   * The prompt inference would use now, without freezing or persisting: the snapshot, else the
   * stored prompt, else a render of the current blocks (docs/behavior/overlays.md).
   */
  async current(): Promise<string> {
    if (this.frozen !== null) return this.frozen;
    const stored = this.store ? await this.store.get() : null;
    if (stored !== null) return stored;
    await this.blocks.load();
    return renderSystemPrompt(this.blocks.loadedBlocks());
  }
}
