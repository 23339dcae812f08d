import { useCallback, useEffect, useRef, useState } from "react";
import type { ChatBranchInfo, ChatBranchView } from "../types.js";

/** A message as `useChat` holds it (the AI SDK's `UIMessage`, structurally). */
export interface BranchUIMessage {
  id: string;
  role: string;
  parts: unknown[];
  metadata?: unknown;
}

/** What the hook uses of `useChat()`'s result: pass that result as it is. */
export interface BranchChat<MESSAGE extends BranchUIMessage = BranchUIMessage> {
  id: string;
  messages: MESSAGE[];
  setMessages(messages: MESSAGE[]): void;
  status: string;
  stop(): unknown;
}

/** Options of `useChatBranches()`. */
export interface UseChatBranchesOptions<
  MESSAGE extends BranchUIMessage = BranchUIMessage,
> {
  /** The result of `useChat()`. */
  chat: BranchChat<MESSAGE>;
  /** The path of the chat routes (`basePath` of `createChatHandler`); default `"/api/chat"`. */
  api?: string;
  /** The view the page was rendered with (from `GET {api}/:id` or `handler.load()`). */
  initial?: ChatBranchView;
  /** Headers for the hook's requests (an auth token, for example). */
  headers?: Record<string, string>;
  /** `fetch` to use; default the global one. */
  fetch?: typeof globalThis.fetch;
}

/** Where a message sits among its siblings: the "← 2/3 →" of the switcher (1-based `position`). */
export interface BranchPosition {
  position: number;
  count: number;
  hasPrevious: boolean;
  hasNext: boolean;
}

/** What `useChatBranches()` returns. */
export interface ChatBranches {
  /** The message's place among its siblings, or `undefined` when it has none. */
  branchOf(messageId: string): BranchPosition | undefined;
  /** Shows the previous sibling's branch (switching the active branch on the server). */
  previous(messageId: string): Promise<void>;
  /** Shows the next sibling's branch. */
  next(messageId: string): Promise<void>;
  /** Shows the branch through `messageId`. */
  switchTo(messageId: string): Promise<void>;
  /** Stops the answer on the server (in whatever process), then in the browser, and shows what was kept. */
  stop(): Promise<void>;
  /** Loads the active branch from the server into the chat. */
  reload(): Promise<void>;
  /** True while a switch or a reload is out. */
  busy: boolean;
  /** The last failed request, or `null`. */
  error: Error | null;
}

/**
 * The "← 2/3 →" branch switcher for `useChat` messages over `createChatHandler`'s routes
 * (docs/ai-sdk.md, "The branch switcher"): the server keeps every branch and which one is active;
 * the hook shows it. After every answer it loads the active branch back (so ids are the server's),
 * and a switch makes the server's active branch the chosen one. No store of its own.
 *
 * @example
 * ```tsx
 * const chat = useChat({ id: view.id, messages: view.messages, resume: true });
 * const branches = useChatBranches({ chat, initial: view });
 * const at = branches.branchOf(message.id);
 * at && <button onClick={() => branches.previous(message.id)}>←</button>;
 * ```
 */
export function useChatBranches<MESSAGE extends BranchUIMessage>(
  options: UseChatBranchesOptions<MESSAGE>,
): ChatBranches {
  const { chat } = options;
  const api = (options.api ?? "/api/chat").replace(/\/+$/, "");
  const [branches, setBranches] = useState<Record<string, ChatBranchInfo>>(
    options.initial?.branches ?? {},
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const latest = useRef({ options, chat });
  latest.current = { options, chat };
  const stopping = useRef(false);

  const request = useCallback(
    async (path: string, init?: RequestInit): Promise<ChatBranchView> => {
      const { options: current, chat: currentChat } = latest.current;
      const doFetch = current.fetch ?? globalThis.fetch;
      const response = await doFetch(
        `${api}/${encodeURIComponent(currentChat.id)}${path}`,
        {
          ...init,
          headers: {
            "content-type": "application/json",
            ...current.headers,
          },
        },
      );
      if (!response.ok)
        throw new Error(
          `${init?.method ?? "GET"} ${path || "/"} answered ${response.status}`,
        );
      return (await response.json()) as ChatBranchView;
    },
    [api],
  );

  const show = useCallback((view: ChatBranchView) => {
    setBranches(view.branches);
    // eslint-disable-next-line no-restricted-syntax -- the server answers the messages this chat sent, of the host's own MESSAGE type, which Arbor cannot name
    latest.current.chat.setMessages(view.messages as unknown as MESSAGE[]);
  }, []);

  const run = useCallback(
    async (work: () => Promise<ChatBranchView | null>) => {
      setBusy(true);
      try {
        const view = await work();
        if (view) show(view);
        setError(null);
      } catch (failure) {
        setError(
          failure instanceof Error ? failure : new Error(String(failure)),
        );
      } finally {
        setBusy(false);
      }
    },
    [show],
  );

  const reload = useCallback(() => run(() => request("")), [run, request]);

  // After each answer, show the branch as stored: the server's ids and the new siblings.
  const previousStatus = useRef(chat.status);
  useEffect(() => {
    const was = previousStatus.current;
    previousStatus.current = chat.status;
    const answering = (status: string) =>
      status === "submitted" || status === "streaming";
    if (answering(was) && !answering(chat.status) && !stopping.current)
      void reload();
  }, [chat.status, reload]);

  const switchTo = useCallback(
    (messageId: string) =>
      run(() =>
        request("/branch", {
          method: "POST",
          body: JSON.stringify({ messageId }),
        }),
      ),
    [run, request],
  );

  const step = useCallback(
    (messageId: string, by: number) => {
      const info = branches[messageId];
      const target = info?.siblings[info.index + by];
      return target ? switchTo(target) : Promise.resolve();
    },
    [branches, switchTo],
  );

  const stop = useCallback(async () => {
    stopping.current = true;
    try {
      const stopped = request("/stop", { method: "POST" });
      await latest.current.chat.stop();
      await run(async () => {
        await stopped;
        return request("");
      });
    } finally {
      stopping.current = false;
    }
  }, [request, run]);

  const branchOf = useCallback(
    (messageId: string): BranchPosition | undefined => {
      const info = branches[messageId];
      if (!info || info.siblings.length < 2) return undefined;
      return {
        position: info.index + 1,
        count: info.siblings.length,
        hasPrevious: info.index > 0,
        hasNext: info.index < info.siblings.length - 1,
      };
    },
    [branches],
  );

  return {
    branchOf,
    previous: (messageId) => step(messageId, -1),
    next: (messageId) => step(messageId, 1),
    switchTo,
    stop,
    reload,
    busy,
    error,
  };
}
