import type { SessionContextOptions } from "../../session/context/types.js";
import type { SessionMessage } from "../../session/contracts/types.js";
import { Session } from "../../session/facade/session.js";
import { build, chain, ids, textMessage } from "../fixtures.js";
import { caught, caughtSync, messageOf, summarizeError } from "../helpers.js";
import type { Suite } from "../suite.js";

/** Session input checks: store targets, message roles, block budgets, parent ids. */
export function sessionInputSpec(rootSuite: Suite): void {
  const suite = rootSuite.withLayer("session");
  const { expect } = suite;
  suite.describe("session input", () => {
    suite.it(
      "rejects an object that is neither a sql store nor a SessionProvider at once",
      async ({ provider }) => {
        const complete = provider();
        const partial = { appendMessage: () => true, getHistory: () => [] };
        const targets: Array<[string, unknown]> = [
          ["an empty object", {}],
          ["a plain record", { name: "memory" }],
          ["a provider without most methods", partial],
          ["a class instance", new Map()],
        ];
        for (const [label, target] of targets) {
          for (const [how, create] of [
            // @ts-expect-error -- neither a store nor a provider, on purpose
            ["create", () => Session.create(target)],
            // @ts-expect-error -- neither a store nor a provider, on purpose
            ["constructor", () => new Session(target)],
          ] as const) {
            const error = caughtSync(create);
            expect({ label, how, ...summarizeError(error) }).toEqual({
              label,
              how,
              kind: "TypeError",
              code: "INVALID_TARGET",
              marked: true,
            });
          }
        }
        expect(caughtSync(() => Session.create(complete))).toBe(undefined);
      },
    );

    suite.it(
      "names the accepted forms, PostgreSQL's among them, when given a PostgreSQL client",
      async () => {
        const clients: Array<[string, unknown]> = [
          ["pg-style", { query: async () => ({ rows: [] }) }],
          ["execute-style", { execute: async () => ({ rows: [] }) }],
        ];
        for (const [label, client] of clients) {
          // @ts-expect-error -- a database client is not a Session target
          const error = caughtSync(() => Session.create(client));
          expect({ label, ...summarizeError(error) }).toEqual({
            label,
            kind: "TypeError",
            code: "INVALID_TARGET",
            marked: true,
          });
          for (const form of [
            "new PostgresSessionProvider(",
            "postgresBackend(client)",
            "openSqlite()",
          ])
            expect(String(messageOf(error))).toContain(form);
        }
      },
    );

    suite.it(
      "rejects a role other than system, user or assistant and writes nothing",
      async ({ session }) => {
        const subject = session();
        await subject.appendMessage(textMessage("keep", "kept"));
        for (const role of ["tool", "data", "", "User", "function"]) {
          const message = { ...textMessage("bad"), role } as SessionMessage;
          for (const [how, write] of [
            ["append", () => subject.appendMessage(message)],
            ["update", () => subject.updateMessage(message)],
            [
              "update of a stored id",
              () =>
                subject.updateMessage({
                  ...textMessage("keep"),
                  role,
                }),
            ],
          ] as const) {
            const error = await caught(write);
            expect({ role, how, ...summarizeError(error) }).toEqual({
              role,
              how,
              kind: "TypeError",
              code: "INVALID_MESSAGE",
              marked: true,
            });
          }
        }
        expect(ids(await subject.getHistory())).toEqual(["keep"]);
        expect((await subject.getMessage("keep"))?.role).toBe("user");
        for (const role of ["system", "user", "assistant"] as const)
          await subject.appendMessage({ ...textMessage(role), role });
        expect(ids(await subject.getHistory())).toEqual([
          "keep",
          "system",
          "user",
          "assistant",
        ]);
      },
    );

    suite.it(
      "rejects a block maxTokens that is not a positive number",
      async ({ provider, session }) => {
        const text = { get: async () => "hello" };
        for (const maxTokens of [0, -5, Number.NaN, "100", null]) {
          const options = {
            provider: text,
            maxTokens,
          } as SessionContextOptions;
          const attempts: Array<[string, () => unknown]> = [
            ["withContext", () => session().withContext("memory", options)],
            [
              "constructor",
              () =>
                new Session(provider(), {
                  context: [{ label: "memory", ...(options as object) }],
                }),
            ],
          ];
          for (const [how, attempt] of attempts) {
            expect({
              how,
              maxTokens: String(maxTokens),
              ...summarizeError(caughtSync(attempt)),
            }).toEqual({
              how,
              maxTokens: String(maxTokens),
              kind: "TypeError",
              code: "INVALID_ARGUMENT",
              marked: true,
            });
          }
          const running = session();
          const runtimeError = await caught(() =>
            running.addContext("notes", options),
          );
          expect({
            how: "addContext",
            maxTokens: String(maxTokens),
            ...summarizeError(runtimeError),
          }).toEqual({
            how: "addContext",
            maxTokens: String(maxTokens),
            kind: "TypeError",
            code: "INVALID_ARGUMENT",
            marked: true,
          });
          expect(running.getContextBlock("notes")).toBeNull();
        }
        const valid = session().withContext("memory", {
          provider: text,
          maxTokens: 40,
        });
        expect(await valid.freezeSystemPrompt()).toContain("/40 tokens]");
      },
    );

    suite.it(
      "stores a message under a parent id that is not a string as a root, with a warning",
      async ({ session }) => {
        const subject = session();
        await build(subject, chain(2));
        for (const [index, parentId] of [1, true, { id: "m1" }].entries()) {
          const id = `x${index}`;
          const warnings = await warningsOf(() =>
            // @ts-expect-error -- a parent id that is not a string, on purpose
            subject.appendMessage(textMessage(id), parentId),
          );
          expect({ id, warned: warnings.some((w) => w.includes(id)) }).toEqual({
            id,
            warned: true,
          });
          expect(ids(await subject.getHistory(id))).toEqual([id]);
        }
        const missing = await warningsOf(() =>
          subject.appendMessage(textMessage("y"), "missing"),
        );
        expect(missing.some((warning) => warning.includes('"y"'))).toBe(true);
      },
    );
  });
}

// --- Internal helpers ---

/** Runs `fn` and returns what it wrote to `console.warn`. */
async function warningsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    warnings.push(args.map(String).join(" "));
  };
  try {
    await fn();
  } finally {
    console.warn = warn;
  }
  return warnings;
}
