// The recent-history window read from the leaf upward (as far as the budget needs) against the
// window chosen on the whole path (`chooseRecentWindow` over the row stats), on random trees
// with random overlays (nested, overlapping, reaching above the window, ending on another
// branch), budgets and floors. Shared by the backends' tests.
import fc from "fast-check";
import { expect } from "vitest";
import type { SessionProvider } from "../../../src/session/contracts/provider.js";
import type { SessionMessage } from "../../../src/session/contracts/types.js";
import { chooseRecentWindow } from "../../../src/session/tree/recent-window.js";

type MaybePromise<T> = T | Promise<T>;

/** What the check uses of a provider: the seed API's append, overlays and the two reads. */
export type RecentProvider = Pick<
  SessionProvider,
  "addCompaction" | "getCompactions" | "getRecentHistory" | "getHistoryRowStats"
> & {
  appendMessage(
    message: SessionMessage,
    parentId?: string | null,
  ): MaybePromise<unknown>;
};

/** A fresh, empty provider with `getRecentHistory` and `getHistoryRowStats`; `close` after. */
export type RecentProviderFactory = () => MaybePromise<{
  provider: RecentProvider;
  close: () => MaybePromise<void>;
}>;

const message = (id: string, size: number): SessionMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: `${id} ${"x".repeat(size)}` }],
});

/** Checks `runs` random trees; each is built on a fresh provider from `create`. */
export async function checkRecentWindowsAgainstWholePath(
  create: RecentProviderFactory,
  runs: number,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          // How far back the parent is (0 = the newest message: a chain).
          back: fc.oneof(fc.constant(0), fc.constant(0), fc.nat({ max: 30 })),
          size: fc.oneof(fc.nat({ max: 60 }), fc.nat({ max: 600 })),
        }),
        { minLength: 1, maxLength: 160 },
      ),
      fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 6 }),
      fc.nat(),
      fc.integer({ min: 1, max: 8_000 }),
      fc.integer({ min: 1, max: 12 }),
      async (steps, overlayPicks, leafPick, maxBytes, floor) => {
        const { provider, close } = await create();
        try {
          const ids: string[] = [];
          for (const [index, { back, size }] of steps.entries()) {
            const parent =
              ids.length === 0
                ? null
                : ids[Math.max(0, ids.length - 1 - back)]!;
            const id = `m${index}`;
            await provider.appendMessage(message(id, size), parent);
            ids.push(id);
          }
          // Any two messages: on one path or not, in either order (the read ignores what does not apply).
          for (const [from, to] of overlayPicks)
            await provider.addCompaction(
              `summary of ${from}..${to}`,
              ids[from % ids.length]!,
              ids[to % ids.length]!,
            );
          const leaf = ids[leafPick % ids.length]!;
          const recent = await provider.getRecentHistory!(
            leaf,
            maxBytes,
            floor,
          );
          const rows = await provider.getHistoryRowStats!(leaf);
          const whole = chooseRecentWindow(
            rows,
            await provider.getCompactions(),
            maxBytes,
            floor,
          );
          expect(recent.messages.map((m: SessionMessage) => m.id)).toEqual(
            whole.spans.map((span) =>
              span.kind === "row"
                ? rows[span.index]!.id
                : `compaction_${span.overlay.id}`,
            ),
          );
          expect(recent.truncated).toBe(whole.truncated);
          expect(recent.totalContentBytes).toBe(whole.totalContentBytes);
        } finally {
          await close();
        }
      },
    ),
    { numRuns: runs },
  );
}
