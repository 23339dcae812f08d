// The data the studio tests look at, written through the manager (the API's own backend):
//
//   u1 → a1 → u2 → a2                     (the museum answer)
//                → a2b → u3 → a3           (regenerated answer, then food: the active branch)
//
// with an overlay summarizing u1 … a1 (fake summarizer provenance), tool, reasoning and file
// parts in a1, a `memory` block written twice, and a second session owned by someone else.
import type { SessionManager } from "../../../src/session/index.js";

const text = (value: string) => ({ type: "text", text: value });

/** Ids and names the tests assert on. */
export const SEEDED = {
  tripName: "Trip to Lisbon",
  otherName: "Deployment planning",
  overlaySummary:
    "The user plans a trip to Lisbon in May; the weather will be mild.",
  memoryV1: "Prefers museums.",
  memoryV2: "Prefers museums and seafood.",
};

/** Writes the seeded sessions; returns their ids. */
export async function seedSessions(
  manager: SessionManager,
): Promise<{ tripId: string; otherId: string }> {
  const trip = await manager.create(SEEDED.tripName, {
    ownerId: "alice",
    model: "fake-model",
  });
  const session = manager.getSession(trip.id);
  await session.appendMessage({
    id: "u1",
    role: "user",
    parts: [
      text("Plan a trip to Lisbon in May."),
      {
        type: "file",
        mediaType: "text/plain",
        filename: "dates.txt",
        url:
          "data:text/plain;base64," +
          Buffer.from("May 3 to May 9").toString("base64"),
      },
    ],
  });
  await session.appendMessage({
    id: "a1",
    role: "assistant",
    parts: [
      { type: "reasoning", text: "I should check the weather first." },
      {
        type: "tool-get_weather",
        toolCallId: "call-1",
        state: "output-available",
        input: { city: "Lisbon", month: "May" },
        output: { averageHighC: 22 },
      },
      text("May is mild in Lisbon: around 22 °C."),
    ],
  });
  await session.appendMessage({
    id: "u2",
    role: "user",
    parts: [text("Which museum should we visit?")],
  });
  await session.appendMessage({
    id: "a2",
    role: "assistant",
    parts: [text("The Gulbenkian museum has a fine collection.")],
  });
  await session.appendMessage(
    {
      id: "a2b",
      role: "assistant",
      parts: [text("The tile museum (Azulejo) is unique to Lisbon.")],
    },
    "u2",
  );
  await session.appendMessage({
    id: "u3",
    role: "user",
    parts: [text("And where do we eat?")],
  });
  await session.appendMessage({
    id: "a3",
    role: "assistant",
    parts: [text("Try the pastries in Belém and grilled sardines in Alfama.")],
  });
  await session.addCompaction(SEEDED.overlaySummary, "u1", "a1", {
    summarizer: "fake-summarizer",
    tokensBefore: 1200,
    tokensAfter: 60,
    coveredMessages: 2,
  });
  await session.freezeSystemPrompt();
  await session.replaceContextBlock("memory", SEEDED.memoryV1);
  await session.replaceContextBlock("memory", SEEDED.memoryV2);

  const other = await manager.create(SEEDED.otherName, { ownerId: "acme" });
  const otherSession = manager.getSession(other.id);
  await otherSession.appendMessage({
    id: "d1",
    role: "user",
    parts: [text("When is the deployment?")],
  });
  await otherSession.appendMessage({
    id: "d2",
    role: "assistant",
    parts: [text("On Friday.")],
  });
  return { tripId: trip.id, otherId: other.id };
}

/**
 * A large tree: a main line of `messages` with `branchPoints` side branches of a few messages
 * each, spread evenly along it (5,000 and 200 in the scale test).
 */
export async function seedLargeSession(
  manager: SessionManager,
  messages: number,
  branchPoints: number,
): Promise<string> {
  const info = await manager.create("Large tree", {});
  const session = manager.getSession(info.id);
  const sideLength = 3;
  const mainLength = messages - branchPoints * sideLength;
  const every = Math.floor(mainLength / branchPoints);
  let parent: string | null = null;
  for (let index = 0; index < mainLength; index++) {
    const id = `m${index}`;
    await session.appendMessage(
      {
        id,
        role: index % 2 === 0 ? "user" : "assistant",
        parts: [text(`Main line message ${index}`)],
      },
      parent,
    );
    parent = id;
    if (index % every === 0 && index / every < branchPoints) {
      let sideParent = id;
      for (let step = 0; step < sideLength; step++) {
        const sideId = `s${index}-${step}`;
        await session.appendMessage(
          {
            id: sideId,
            role: step % 2 === 0 ? "assistant" : "user",
            parts: [text(`Side ${index} step ${step}`)],
          },
          sideParent,
        );
        sideParent = sideId;
      }
    }
  }
  return info.id;
}
