import { describe, expect, it } from "vitest";
import { InMemorySessionProvider } from "../../src/backends/memory/index.js";
import { createSuite } from "../../src/testing/suite.js";

// A runner's timeout abandons a case's test but not its body. The suite must not start the next
// case (and clear its store) while an abandoned body can still write.
describe("conformance cases run one at a time", () => {
  function collect() {
    const events: string[] = [];
    const cases: Array<() => unknown> = [];
    const root = new InMemorySessionProvider();
    const suite = createSuite(
      {
        name: "recording",
        create: () => {
          events.push("create");
          return { session: (sessionId) => root.forSession(sessionId) };
        },
      },
      {
        describe: (_name, fn) => fn(),
        it: (_name, fn) => void cases.push(fn),
        expect: expect as never,
      },
    );
    return { suite, cases, events };
  }

  it("starts a case only after the body before it has settled, even when its test was abandoned", async () => {
    const { suite, cases, events } = collect();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    suite.it("slow", async () => {
      events.push("slow: start");
      await gate;
      events.push("slow: end");
    });
    suite.it("next", async () => {
      events.push("next");
    });
    const slow = cases[0]!() as Promise<void>;
    // The runner gave up on "slow" and moved on: "next" is called while "slow" still runs.
    const next = cases[1]!() as Promise<void>;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(["create", "slow: start"]);
    release();
    await Promise.all([slow, next]);
    expect(events).toEqual([
      "create",
      "slow: start",
      "slow: end",
      "create",
      "next",
    ]);
  });

  it("a failed case does not stop the ones after it, and its error stays its own", async () => {
    const { suite, cases, events } = collect();
    suite.it("fails", async () => {
      throw new Error("boom");
    });
    suite.it("passes", async () => {
      events.push("passes");
    });
    await expect(cases[0]!()).rejects.toThrow("boom");
    await expect(cases[1]!()).resolves.toBeUndefined();
    expect(events).toEqual(["create", "create", "passes"]);
  });
});
