// The worked example of docs/compaction.md: one transcript compacted with createCompactFunction and
// a fake summarizer (it returns canned text and records its prompts; no model is called).
// Run with `npm run build && node examples/compaction-example.mjs`.
import {
  alignBoundaryForward,
  applyCompactions,
  createCompactFunction,
  estimateMessageTokens,
  findTailCutByTokens,
} from "arbor-memory/utils";

const text = (id, role, value) => ({
  id,
  role,
  parts: [{ type: "text", text: value }],
});
const messages = [
  text(
    "u1",
    "user",
    "I'm planning 3 days in Lisbon in May, budget about 900 EUR. I hate early flights.",
  ),
  text(
    "a2",
    "assistant",
    "Happy to help. I'll look at weather, a place to stay and flights.",
  ),
  text("u3", "user", "What's the weather like then?"),
  {
    id: "a4",
    role: "assistant",
    parts: [
      {
        type: "tool-get_weather",
        toolCallId: "call_w",
        state: "output-available",
        input: { city: "Lisbon", month: "May" },
        output: {
          city: "Lisbon",
          month: "May",
          averages: { highC: 23, lowC: 15, sunHours: 10, seaC: 17 },
          rainyDays: 4,
          wind: "north-westerly, stronger in the afternoon",
          uvIndex: 8,
        },
      },
      {
        type: "text",
        text: "Expect 15–23 °C, about 10 hours of sun a day and only 4 rainy days. The sea is still cold (17 °C). Afternoons can be windy near the river, and the UV index is high, so bring sunscreen and a light jacket for the evenings.",
      },
    ],
  },
  text(
    "u5",
    "user",
    "Which neighbourhood should I stay in? I like walking and old streets, not nightlife.",
  ),
  text(
    "a6",
    "assistant",
    "Alfama fits best: the oldest district, steep lanes, viewpoints like Miradouro de Santa Luzia, quiet at night. Graça next to it is similar and a bit cheaper. Avoid Bairro Alto, which is loud until late. Baixa is flat and central but more touristy.",
  ),
  text(
    "u7",
    "user",
    "Alfama then. Find a hotel there under 120 EUR a night, and flights from Berlin.",
  ),
  {
    id: "a8",
    role: "assistant",
    parts: [
      {
        type: "tool-search_hotels",
        toolCallId: "call_h",
        state: "input-available",
        input: { area: "Alfama", maxPerNight: 120 },
      },
      {
        type: "tool-search_flights",
        toolCallId: "call_f",
        state: "input-available",
        input: { from: "BER", to: "LIS", month: "May" },
      },
    ],
  },
  {
    id: "r9",
    role: "tool",
    parts: [
      {
        type: "tool-search_hotels",
        toolCallId: "call_h",
        state: "output-available",
        output: [
          { name: "Casa do Largo", perNight: 110 },
          { name: "Alfama Patio", perNight: 95 },
        ],
      },
    ],
  },
  text("u10", "user", "While that runs: is the 28 tram worth it?"),
  text(
    "a11",
    "assistant",
    "Yes, but ride it before 9:00 or after 19:00 to avoid the queues.",
  ),
  {
    id: "r12",
    role: "tool",
    parts: [
      {
        type: "tool-search_flights",
        toolCallId: "call_f",
        state: "output-available",
        output: [{ flight: "TP 541", departs: "11:05", priceEur: 180 }],
      },
    ],
  },
  text(
    "a13",
    "assistant",
    "Casa do Largo (110 EUR/night) or Alfama Patio (95). TP 541 leaves Berlin at 11:05 for 180 EUR.",
  ),
  text("u14", "user", "Book Alfama Patio and TP 541."),
];

const prompts = [];
const fakeSummarize = async (prompt) => {
  prompts.push(prompt);
  return [
    "## Topic",
    "Lisbon trip planning (May).",
    "",
    "## Key Points",
    "- May: 15–23 °C, 4 rainy days, windy afternoons, high UV.",
    "- User likes walking and old streets, not nightlife: chose Alfama.",
    "",
    "## Current State",
    "Weather and area settled.",
    "",
    "## Open Items",
    "- Hotel in Alfama under 120 EUR/night; flights from Berlin.",
  ].join("\n");
};
const options = {
  summarize: fakeSummarize,
  tailTokenBudget: 90,
  label: "fake-summarizer",
};
const compact = createCompactFunction(options);

/** One line per message: id, role, heuristic tokens, then its parts in short. */
const line = (message) => {
  const parts = message.parts
    .map((part) =>
      part.type === "text"
        ? JSON.stringify(
            part.text.length > 60 ? part.text.slice(0, 57) + "..." : part.text,
          )
        : `${part.type}(${part.toolCallId}${part.output !== undefined ? ", output" : ""})`,
    )
    .join(" + ");
  return `${message.id.padEnd(16)} ${message.role.padEnd(9)} ${String(estimateMessageTokens([message])).padStart(3)} tok  ${parts}`;
};
const print = (list) =>
  list.forEach((message, index) =>
    console.log(String(index).padStart(2), line(message)),
  );
console.log("BEFORE");
print(messages);
// The range the head and tail alignment alone would pick (protectHead 3, minTailMessages 2 are the defaults).
const start = alignBoundaryForward(messages, 3);
const end = findTailCutByTokens(messages, start, 90, 2);
console.log(
  `\nalignment alone: head [0, ${start}), summarize [${start}, ${end}) = ${messages[start].id} … ${messages[end - 1].id}, tail from ${messages[end].id}`,
);
const result = await compact(messages);
console.log("\nRESULT", JSON.stringify({ ...result, summary: "…" }));
console.log("\nPROMPT\n" + prompts[0]);
// What session.compact() stores; getHistory() applies it on read.
const overlay = {
  id: "6f1c",
  summary: result.summary,
  fromMessageId: result.fromMessageId,
  toMessageId: result.toMessageId,
  createdAt: "2026-05-02T10:00:00.000Z",
};
console.log("\nAFTER (getHistory view)");
print(applyCompactions(messages, [overlay]));
console.log(
  "\nTOKENS",
  estimateMessageTokens(messages),
  "->",
  estimateMessageTokens(applyCompactions(messages, [overlay])),
);

// Round 2: the conversation goes on; the next compaction sees the summary in its input.
const view = [
  ...applyCompactions(messages, [overlay]),
  text(
    "a15",
    "assistant",
    "Booked: Alfama Patio, 3 nights, 285 EUR total, and TP 541 on 12 May. Confirmation codes are in your email.",
  ),
  text("u16", "user", "Great. Anything I must not miss in Alfama?"),
  text(
    "a17",
    "assistant",
    "Sunset at Miradouro da Senhora do Monte, fado at a small tasca in the evening, and the Feira da Ladra flea market on Tuesday or Saturday morning.",
  ),
  text("u18", "user", "Add those to my plan."),
];
const secondResult = await compact(view);
console.log(
  "\nROUND 2 RESULT",
  JSON.stringify({ ...secondResult, summary: "…" }),
);
console.log(
  "\nROUND 2 PROMPT (start)\n" + prompts[1].split("\n").slice(0, 22).join("\n"),
);
