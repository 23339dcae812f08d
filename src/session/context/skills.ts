import { toolNameOf } from "../messages/tool-parts.js";
import type { SessionTree } from "../state/session-tree.js";
import type { SessionMessage, SessionMessagePart } from "../contracts/types.js";

/** What a skill's tool output becomes once the skill is unloaded (docs/behavior/context-blocks.md). */
export const unloadedMarker = (key: string): string =>
  `[skill unloaded: ${key}]`;

const skillId = (label: string, key: string): string => `${label}:${key}`;

/**
 * Which skills are loaded, as `"<label>:<key>"` (docs/behavior/context-blocks.md). Loaded skills live in the transcript,
 * so tracking is rebuilt from it after a restart, and unloading rewrites the transcript so the
 * skill body stops being replayed.
 */
export class SkillTracker {
  private readonly loaded = new Set<string>();

  keys(): Set<string> {
    return new Set(this.loaded);
  }

  isLoaded(label: string, key: string): boolean {
    return this.loaded.has(skillId(label, key));
  }

  add(label: string, key: string): void {
    this.loaded.add(skillId(label, key));
  }

  delete(label: string, key: string): boolean {
    return this.loaded.delete(skillId(label, key));
  }

  clear(): void {
    this.loaded.clear();
  }

  /** Drops tracking for a removed block, without touching history. */
  forgetLabel(label: string): void {
    for (const id of this.loaded)
      if (id.startsWith(`${label}:`)) this.loaded.delete(id);
  }

  /** Rebuilds tracking from the active path's assistant messages, raw (docs/behavior/context-blocks.md). */
  async restore(tree: SessionTree): Promise<void> {
    this.loaded.clear();
    for await (const message of assistantMessagesOnPath(tree)) {
      for (const part of message.parts) {
        const call = skillCall(part);
        if (!call) continue;
        const unloaded =
          call.tool === "unload_context" ||
          (typeof part.output === "string" &&
            part.output.startsWith("[skill unloaded:"));
        if (unloaded) this.delete(call.label, call.key);
        else this.add(call.label, call.key);
      }
    }
  }
}

/**
 * Rewrites every `load_context(label, key)` result on the active path to the unloaded marker
 * and saves each changed message with `update`. Returns how many messages changed.
 */
export async function reclaimSkill(
  tree: SessionTree,
  label: string,
  key: string,
  update: (message: SessionMessage) => Promise<void>,
): Promise<ReclaimedOutput[]> {
  const reclaimed: ReclaimedOutput[] = [];
  for await (const message of assistantMessagesOnPath(tree)) {
    let touched = false;
    const parts = message.parts.map((part) => {
      const call = skillCall(part);
      if (
        call?.tool !== "load_context" ||
        call.label !== label ||
        call.key !== key
      )
        return part;
      if (part.output === unloadedMarker(key)) return part;
      touched = true;
      reclaimed.push({
        messageId: message.id,
        toolCallId: part.toolCallId,
        output: part.output,
      });
      return { ...part, output: unloadedMarker(key) };
    });
    if (touched) await update({ ...message, parts });
  }
  return reclaimed;
}

/** A tool output that unloading replaced with the marker (kept for the audit sink). */
export interface ReclaimedOutput {
  messageId: string;
  toolCallId: string | undefined;
  output: unknown;
}

/**
 * Write-time reclaim (docs/behavior/context-blocks.md): in an assistant message where a skill is loaded and later, in
 * the same message, successfully unloaded, the load's output is replaced before storing.
 * Returns the message itself when nothing changes.
 */
export function reclaimWithinMessage(message: SessionMessage): SessionMessage {
  if (message.role !== "assistant" || !Array.isArray(message.parts))
    return message;
  const unloadedAfter = new Map<string, number>();
  message.parts.forEach((part, index) => {
    const call = skillCall(part);
    if (
      call?.tool === "unload_context" &&
      typeof part.output === "string" &&
      part.output.startsWith('Unloaded "')
    ) {
      unloadedAfter.set(skillId(call.label, call.key), index);
    }
  });
  if (unloadedAfter.size === 0) return message;
  let touched = false;
  const parts = message.parts.map((part, index) => {
    const call = skillCall(part);
    if (call?.tool !== "load_context") return part;
    const unloadIndex = unloadedAfter.get(skillId(call.label, call.key));
    if (unloadIndex === undefined || unloadIndex < index) return part;
    if (part.output === unloadedMarker(call.key)) return part;
    touched = true;
    return { ...part, output: unloadedMarker(call.key) };
  });
  return touched ? { ...message, parts } : message;
}

// --- Internal helpers ---

interface SkillCall {
  tool: "load_context" | "unload_context";
  label: string;
  key: string;
}

/** A completed `load_context`/`unload_context` call in a part, static or dynamic. */
function skillCall(part: SessionMessagePart): SkillCall | null {
  if (part.state !== "output-available") return null;
  const tool = toolNameOf(part);
  if (tool !== "load_context" && tool !== "unload_context") return null;
  const input = part.input as { label?: unknown; key?: unknown } | undefined;
  if (typeof input?.label !== "string" || typeof input.key !== "string")
    return null;
  return { tool, label: input.label, key: input.key };
}

/**
 * The raw assistant messages of the active path, oldest first. With row stats, one message is
 * read at a time (bounded memory); otherwise the history is read whole.
 */
async function* assistantMessagesOnPath(
  tree: SessionTree,
): AsyncGenerator<SessionMessage> {
  const stats = await tree.historyRowStats();
  if (stats) {
    for (const stat of stats) {
      if (stat.role !== "assistant") continue;
      const message = await tree.provider.getMessage(stat.id);
      if (message) yield message;
    }
    return;
  }
  for (const message of await tree.history()) {
    if (message.role === "assistant") yield message;
  }
}
