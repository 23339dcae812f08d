/** The shapes the HTTP API answers (docs/decisions/2026-12-01-server-cli-formats.md), as JSON. */

/** The registry row plus owner, metadata and the stored message count. */
export interface SessionView {
  id: string;
  name: string;
  parent_session_id: string | null;
  model: string | null;
  source: string | null;
  input_tokens: number;
  output_tokens: number;
  estimated_cost: number;
  end_reason: string | null;
  created_at: string;
  updated_at: string;
  ownerId?: string | null;
  metadata?: Record<string, string>;
  messageCount?: number;
}

/** One part of a message (AI SDK UIMessage parts and older shapes). */
export interface MessagePart {
  type: string;
  text?: string;
  reasoning?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  state?: string;
  result?: unknown;
  errorText?: string;
  [extra: string]: unknown;
}

/** A message as JSON (`createdAt` is a string on the wire). */
export interface Message {
  id: string;
  role: string;
  parts: MessagePart[];
  createdAt?: string;
  [extra: string]: unknown;
}

/** One node of `GET /tree`. */
export interface TreeNode {
  id: string;
  parentId: string | null;
  role: string;
  createdAt: string;
  preview: string;
}

/** A compaction overlay and its provenance. */
export interface Compaction {
  id: string;
  summary: string;
  fromMessageId: string;
  toMessageId: string;
  createdAt: string;
  meta?: {
    summarizer?: string;
    tokensBefore?: number;
    tokensAfter?: number;
    coveredMessages?: number;
    [extra: string]: unknown;
  };
}

/** `GET /tree`. */
export interface TreeAnswer {
  nodes: TreeNode[];
  activeLeafId: string | null;
  compactions: Compaction[];
}

/** A loaded context block. */
export interface Block {
  label: string;
  description?: string;
  content: string;
  tokens: number;
  maxTokens?: number;
  writable: boolean;
  isSkill?: boolean;
  isSearchable?: boolean;
}

/** One recorded write of a block. */
export interface BlockVersion {
  version: number;
  content: string;
  previousContent: string | null;
  source: string;
  toolCallId?: string;
  at: string;
}

/** One search hit; cross-session hits carry `sessionId`. */
export interface SearchHit {
  id: string;
  role: string;
  content: string;
  createdAt?: string;
  sessionId?: string;
}

/** `GET /prompt`: the frozen prompt and the prompt rendered from the blocks now. */
export interface PromptAnswer {
  prompt: string | null;
  current: string | null;
}
