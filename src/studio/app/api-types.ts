/**
 * The shapes the HTTP API answers, as the studio uses them. They come from the server's OpenAPI
 * document (api-types.generated.ts, written by scripts/studio-api-types.mjs; a test fails when
 * it drifts from the server). Only message parts are widened here: the API keeps parts open (any
 * AI SDK part shape), and these are the fields of those shapes that the studio reads.
 */
import type * as Api from "./api-types.generated.js";

/** The registry row plus owner, metadata and the stored message count. */
export type SessionView = Api.SessionView;

/** One part of a message (AI SDK UIMessage parts and older shapes). */
export interface MessagePart extends Api.MessagePart {
  text?: string;
  reasoning?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  state?: string;
  result?: unknown;
  errorText?: string;
}

/** A message as JSON (`createdAt` is a string on the wire). */
export interface Message extends Api.Message {
  parts: MessagePart[];
  createdAt?: string;
}

/** One node of `GET /tree`. */
export type TreeNode = Api.TreeNode;

/** A compaction overlay and its provenance. */
export type Compaction = Api.Compaction;

/** `GET /tree`. */
export type TreeAnswer = Api.Tree;

/** A loaded context block. */
export type Block = Api.Block;

/** `POST …/blocks`: a block to create, stored with the session. */
export type CreateBlock = Api.CreateBlock;

/** One recorded write of a block. */
export type BlockVersion = Api.BlockVersion;

/** One search hit; cross-session hits carry `sessionId`. */
export type SearchHit = Api.SearchResult;

/** `GET /prompt`: the frozen prompt and the prompt rendered from the blocks now. */
export type PromptAnswer = Api.Prompt;

/** `GET /context`: the prompt with each block, the history and the tools, each counted. */
export type ContextWindow = Api.ContextWindow;

/** A row of `GET /v1/sessions`: the session and how many sessions it started. */
export type SessionListItem = Api.SessionListItem;

/** `GET /v1/sessions`: one page. */
export type SessionPage = Api.SessionPage;

/** `GET /history/recent`: the end of a path. */
export type RecentHistory = Api.RecentHistory;

/** `POST /v1/import`: what the import did. */
export type ImportReport = Api.Imported;
