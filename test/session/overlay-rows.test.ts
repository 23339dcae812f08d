// Stored rows with an overlay id (`compaction_…`) stay out of every read of the `Session` API,
// also on a custom provider that has only the required methods (no path ids, no windows, no
// export), where the rule falls back to what those methods can tell.
import { describe, expect, it } from "vitest";
import {
  REQUIRED_PROVIDER_METHODS,
  type SessionProvider,
} from "../../src/session/contracts/provider.js";
import type { SessionMessage } from "../../src/session/contracts/types.js";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import { Session } from "../../src/session/facade/session.js";

const text = (id: string, role = "user"): SessionMessage => ({
  id,
  role,
  parts: [{ type: "text", text: id }],
});

/** Only the required methods of an in-memory provider. */
function minimalProvider(): SessionProvider {
  const inner = new InMemorySessionProvider();
  const minimal: Record<string, unknown> = {};
  for (const name of REQUIRED_PROVIDER_METHODS)
    minimal[name] = inner[name].bind(inner);
  return minimal as Pick<
    SessionProvider,
    (typeof REQUIRED_PROVIDER_METHODS)[number]
  >;
}

const PROVIDERS: Array<[string, () => SessionProvider]> = [
  ["the in-memory provider", () => new InMemorySessionProvider()],
  ["a provider with the required methods only", minimalProvider],
];

describe.each(PROVIDERS)("overlay rows on %s", (_name, create) => {
  it("a summary written back after the leaf is hidden and never the latest leaf", async () => {
    const session = Session.create(create());
    for (const id of ["u1", "a1", "u2", "a2"])
      await session.appendMessage(text(id));
    await session.addCompaction("u1 and a1", "u1", "a1");
    const [summary] = await session.getHistory();
    await session.appendMessage(summary!, "a2");
    expect((await session.getLatestLeaf())?.id).toBe("a2");
    const expected = [summary!.id, "u2", "a2"];
    expect((await session.getHistory()).map((message) => message.id)).toEqual(
      expected,
    );
    const newest: string[] = [];
    for await (const message of session.history({ newestFirst: true }))
      newest.push(message.id);
    expect(newest).toEqual([...expected].reverse());
    expect(await session.getBranches("a2")).toEqual([]);
  });

  it("a hidden row's children read as children of its parent", async () => {
    const session = Session.create(create());
    // An overlay of this session over u1: its summary, written back under u1, is a hidden row.
    await session.appendMessage(text("u1"));
    const overlay = await session.addCompaction("u1", "u1", "u1");
    const hidden = `compaction_${overlay.id}`;
    await session.appendMessage(text(hidden, "assistant"), "u1");
    await session.appendMessage(text("a1"), hidden);
    await session.appendMessage(text("a2"), "u1");
    expect(
      (await session.getBranches("u1")).map((message) => message.id),
    ).toEqual(["a1", "a2"]);
    expect(
      (await session.getHistory("a1")).map((message) => message.id),
    ).toEqual([hidden, "a1"]);
    expect((await session.getLatestLeaf())?.id).toBe("a2");
    expect(await session.getMessage(hidden)).toMatchObject({ id: hidden });
  });

  it("a compaction_ row no overlay of this session stands for reads as a message", async () => {
    const session = Session.create(create());
    await session.appendMessage(text("u1"));
    await session.appendMessage(text("compaction_elsewhere", "assistant"));
    await session.appendMessage(text("a1"));
    expect((await session.getHistory()).map((message) => message.id)).toEqual([
      "u1",
      "compaction_elsewhere",
      "a1",
    ]);
    expect(
      (await session.getBranches("u1")).map((message) => message.id),
    ).toEqual(["compaction_elsewhere"]);
  });
});
