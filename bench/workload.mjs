// The synthetic conversation every benchmark appends: 12 words from a small vocabulary plus a
// number, so search terms have known match counts.
const WORDS =
  "deploy friday server cache review budget memory agent branch search token summary alpha beta gamma delta".split(
    " ",
  );

/** The text of message `i`. */
export const sentence = (i) =>
  Array.from(
    { length: 12 },
    (_, k) => WORDS[(i * 7 + k * 13 + ((i * k) % 5)) % WORDS.length],
  ).join(" ") + ` #${i}`;

/** Message `i`: alternating user and assistant. */
export const message = (i) => ({
  id: `m${i}`,
  role: i % 2 ? "assistant" : "user",
  parts: [{ type: "text", text: sentence(i) }],
});
