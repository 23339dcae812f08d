// A session of many messages, appended one by one through the Session API, for the tests of
// large (streamed) answers: `count` alternating user and assistant turns with ids
// `${prefix}${index}` and the text `text(index)`.
import type { SessionManager } from "../../../src/session/index.js";

export async function largeSession(
  manager: SessionManager,
  options: {
    name?: string;
    count: number;
    prefix?: string;
    text: (index: number) => string;
  },
): Promise<string> {
  const id = (await manager.create(options.name ?? "Large")).id;
  const session = manager.getSession(id);
  for (let index = 0; index < options.count; index++)
    await session.appendMessage({
      id: `${options.prefix ?? "m"}${index}`,
      role: index % 2 ? "assistant" : "user",
      parts: [{ type: "text", text: options.text(index) }],
    });
  return id;
}
