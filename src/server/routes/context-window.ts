import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { ArborError } from "../../session/errors/index.js";
import type { ContextBlock } from "../../session/context/types.js";
import {
  blockHeader,
  BLOCK_SEPARATOR,
  renderSystemPrompt,
} from "../../session/context/render-prompt.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { sessionSeam, type Session } from "../../session/facade/session.js";
import { countMessageTokens } from "../../session/tokens/count-message-tokens.js";
import { estimateStringTokens } from "../../session/tokens/estimate-tokens.js";
import { estimateStringTokensMultilingual } from "../../session/tokens/multilingual-tokens.js";
import { assembleContext } from "../../utils/assemble-context.js";
import type { TruncateOptions } from "../../utils/truncation/truncate.js";
import {
  openSession,
  toWire,
  type ServerDeps,
  type ServerEnv,
} from "../context.js";
import { errors, json, SessionParams } from "../schemas/common.js";
import {
  ContextWindowQuery,
  ContextWindowSchema,
} from "../schemas/context-window.js";

/** `truncateOlderMessages`' defaults (docs/behavior/overlays.md), reported with the answer. */
const TRUNCATION_DEFAULTS = {
  keepRecent: 4,
  maxToolOutputChars: 500,
  maxTextChars: 10_000,
} as const;

export const getContextWindow = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/context",
  tags: ["Context blocks"],
  summary:
    "What a turn would send the model: the system prompt with each block, the history after overlays and truncation, Arbor's tools, each counted; computed, writes nothing",
  request: { params: SessionParams, query: ContextWindowQuery },
  responses: {
    200: json(ContextWindowSchema, "The context window"),
    ...errors(400, 404),
  },
});

/** The context window: a read computed from the session on each request, never stored. */
export function contextWindowRoutes(
  app: OpenAPIHono<ServerEnv>,
  deps: ServerDeps,
): void {
  app.openapi(getContextWindow, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const session = await openSession(deps, c, id);
    const truncation =
      query.truncate === "false"
        ? null
        : {
            keepRecent: query.keepRecent ?? TRUNCATION_DEFAULTS.keepRecent,
            maxToolOutputChars:
              query.maxToolOutputChars ??
              TRUNCATION_DEFAULTS.maxToolOutputChars,
            maxTextChars:
              query.maxTextChars ?? TRUNCATION_DEFAULTS.maxTextChars,
          };
    const countText = await textCounter(session);
    const leafId = query.leafId ?? (await session.getLatestLeaf())?.id ?? null;
    if (query.leafId !== undefined && !(await session.getMessage(query.leafId)))
      throw new ArborError(
        "MESSAGE_NOT_FOUND",
        `Message "${query.leafId}" not found`,
      );
    const history = leafId === null ? [] : await session.getHistory(leafId);
    const { system, messages } = await assembled(session, history, truncation);
    const stored = new Set(history);
    const blocks = (await session.loadContext({ reload: true })).map((block) =>
      blockPart(block, countText),
    );
    const tools = Object.entries(await session.tools()).map(([name, tool]) => {
      const inputSchema = jsonSchemaOf(tool.inputSchema);
      return {
        name,
        description: tool.description,
        inputSchema,
        // What a provider sends for a tool: its name, description and input schema.
        tokens: countText(
          `${name}\n${tool.description}\n${JSON.stringify(inputSchema)}`,
        ),
      };
    });
    const messageParts = messages.map((message) => ({
      message: toWire(message),
      tokens: countMessageTokens([message], countText),
      // truncateOlderMessages and sanitizeToolPairs copy what they change: the rest is the
      // object the history read returned.
      truncated: !stored.has(message),
    }));
    const totals = {
      system: countText(system.text),
      messages: sum(messageParts.map((part) => part.tokens)),
      tools: sum(tools.map((tool) => tool.tokens)),
    };
    return c.json(
      {
        leafId,
        counter:
          countText === estimateStringTokens ? "heuristic" : "multilingual",
        truncation,
        system: { ...system, tokens: totals.system, blocks },
        messages: messageParts,
        tools,
        totals: {
          ...totals,
          all: totals.system + totals.messages + totals.tools,
        },
      } as const,
      200,
    );
  });
}

// --- Internal helpers ---

type TextCounter = (text: string) => number;

/** The string estimate of the store's recorded token estimate (what its sessions count with). */
async function textCounter(session: Session): Promise<TextCounter> {
  const { provider } = await sessionSeam(session).ready();
  const estimate = await provider.getTokenEstimate?.();
  return estimate === "multilingual"
    ? estimateStringTokensMultilingual
    : estimateStringTokens;
}

/**
 * `assembleContext` with `{ freeze: false }` over the history already read (so truncated copies
 * can be told from the stored messages). An empty history is an empty context here, not the
 * `EMPTY_CONTEXT` a turn would throw: the view shows the prompt and tools all the same.
 */
async function assembled(
  session: Session,
  history: SessionMessage[],
  truncation: TruncateOptions | null,
): Promise<{
  system: { text: string; source: "frozen" | "current" };
  messages: SessionMessage[];
}> {
  const reading = await session.readSystemPrompt();
  const system = {
    text: reading.frozen ?? reading.current,
    source:
      reading.frozen === null ? ("current" as const) : ("frozen" as const),
  };
  if (history.length === 0) return { system, messages: [] };
  try {
    const { messages } = await assembleContext(
      {
        freezeSystemPrompt: () => Promise.resolve(system.text),
        readSystemPrompt: () => Promise.resolve(reading),
        getHistory: () => Promise.resolve(history),
      },
      { freeze: false, truncate: truncation ?? false },
    );
    return { system, messages };
  } catch (error) {
    if (error instanceof ArborError && error.code === "EMPTY_CONTEXT")
      return { system, messages: [] };
    throw error;
  }
}

function blockPart(block: ContextBlock, countText: TextCounter) {
  const rendered = renderSystemPrompt([block]) !== "";
  const text = [
    BLOCK_SEPARATOR,
    blockHeader(block),
    BLOCK_SEPARATOR,
    block.content,
  ].join("\n");
  return {
    label: block.label,
    ...(block.description ? { description: block.description } : {}),
    writable: block.writable,
    rendered,
    text,
    tokens: rendered ? countText(text) : 0,
    ...(block.maxTokens ? { maxTokens: block.maxTokens } : {}),
    // The count `maxTokens` limits (the block's own heuristic), as the Blocks view shows it.
    contentTokens: block.tokens,
  };
}

/** A tool's JSON Schema: Arbor's tools carry it as `inputSchema.jsonSchema`. */
function jsonSchemaOf(inputSchema: unknown): Record<string, unknown> {
  if (
    typeof inputSchema === "object" &&
    inputSchema !== null &&
    "jsonSchema" in inputSchema
  ) {
    const schema = inputSchema.jsonSchema;
    if (typeof schema === "object" && schema !== null) return { ...schema };
  }
  return {};
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
