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

// A second, sparse vocabulary: 300 words (the first two are "deploy" and "friday", the rest
// made-up words of vowel-ending syllables that no stemmer folds together), 12 drawn per message by
// an integer hash. "deploy" then appears in about 4% of messages (~2,000 of 50,000), both words in
// about 0.15%, so searches select a small slice instead of half the table as with `sentence`.
const SYLLABLES = "ba do fu ka lo mu na po ru ta vo zu".split(" ");
const SPARSE_WORDS = ["deploy", "friday"];
for (let w = 0; SPARSE_WORDS.length < 300; w++)
  SPARSE_WORDS.push(
    SYLLABLES[w % 12] +
      SYLLABLES[Math.floor(w / 12) % 12] +
      SYLLABLES[Math.floor(w / 144) % 12],
  );

/** A 32-bit integer hash (a xorshift-multiply finaliser), deterministic across runs. */
const hash = (value) => {
  let h = Math.imul(value ^ (value >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
};

/** The text of sparse message `i`: 12 words from the 300-word vocabulary, plus a number. */
export const sparseSentence = (i) =>
  Array.from(
    { length: 12 },
    (_, k) => SPARSE_WORDS[hash(i * 12 + k + 1) % SPARSE_WORDS.length],
  ).join(" ") + ` #${i}`;

/** Sparse message `i`: alternating user and assistant. */
export const sparseMessage = (i) => ({
  id: `m${i}`,
  role: i % 2 ? "assistant" : "user",
  parts: [{ type: "text", text: sparseSentence(i) }],
});

// The scale vocabulary (bench/scale.mjs): 320 everyday nouns, each its own stem under Porter and
// PostgreSQL's "english" configuration and none a stop word, mixed with common filler words. A user
// message draws 6 topic words, an assistant message 14, so a one-word query matches about 3% of
// the messages and a two-word query about 0.1%.
export const TOPIC_WORDS = `
  account address agenda airport album alert algorithm anchor answer apple archive argument
  arrow article asset audit author avatar backup badge balance banana bandwidth banner barrel
  basket battery beach bicycle billing biscuit blanket blossom border bottle boulder bracket
  breakfast bridge brochure bucket budget buffer bundle butter cabinet cable calendar camera
  campaign canal candle canvas capital caption carbon carpet castle catalog cattle ceiling
  cellar channel chapter charity checkout cherry chimney circuit citizen climate clinic closet
  cluster coffee collar column comet compass concert contract cookie copper corridor cottage
  counter coupon courier crystal cupboard curtain cushion customer dashboard database deadline
  decimal default dentist deploy desert diamond diary dinner diploma doctor dolphin domain
  donkey dragon drawer dungeon eagle editor elbow elephant elevator embassy engine envelope
  episode estate evening exhibit fabric factory falcon feather festival fiction filter finance
  firewall flavor forest fortune fountain fragment freight friday galaxy gallery garage garden
  garlic gateway glacier goblet granite graph gravel grocery guitar hammer harbor harvest
  helmet herald highway holiday horizon hospital hotel husband iceberg invoice island jacket
  jaguar journal jungle kernel kettle kitchen ladder lantern laptop lattice laundry lawyer
  ledger lemon lesson library license lobster locker lumber magnet mango manual marble market
  meadow medal melody mentor mirror module monitor monkey morning mortgage mountain museum
  napkin needle network notebook nugget ocean office olive onion orange orbit orchard oxygen
  paddle painter palace pancake parcel parrot passport pasta patent pebble pencil pepper
  pharmacy pillow pilot pirate planet platform pocket poetry portal potato printer prism
  puzzle pyramid quarry rabbit radar railway rainbow recipe reactor rocket router saddle
  salmon sandwich satellite scanner schedule scooter sculptor server shelter shovel signal
  silver sketch slogan socket soldier spinach sponsor stadium statue subway summit sunset
  surgeon switch tablet teacher telescope tennis theater thunder ticket timber tobacco toddler
  tomato tractor traffic trumpet tunnel turkey turtle tuxedo umbrella uniform vacuum valley
  vendor velvet village violin volcano voyage waffle wallet walnut warehouse weather webhook
  whistle widget window winter wizard yogurt zebra`
  .trim()
  .split(/\s+/);
/** Common words mixed into the scale texts (each in a large share of the messages). */
export const FILLER_WORDS =
  "the a to and we it is for of on in this that with can you i will be so but not".split(
    " ",
  );

/** A small deterministic PRNG (mulberry32), so every run writes the same texts. */
const mulberry32 = (seed) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** The text of message `i` of scale session `s`: topic words among filler words. */
export const scaleSentence = (s, i) => {
  const random = mulberry32(s * 1_000 + i + 1);
  const topics = i % 2 ? 14 : 6;
  const words = [];
  for (let k = 0; k < topics; k++) {
    words.push(TOPIC_WORDS[Math.floor(random() * TOPIC_WORDS.length)]);
    if (random() < 0.8)
      words.push(FILLER_WORDS[Math.floor(random() * FILLER_WORDS.length)]);
  }
  return words.join(" ") + ".";
};

/** Message `i` of scale session `s`: alternating user and assistant. */
export const scaleMessage = (s, i) => ({
  id: `m${i}`,
  role: i % 2 ? "assistant" : "user",
  parts: [{ type: "text", text: scaleSentence(s, i) }],
});

/**
 * A chain of `depth` messages in session "deep" of Arbor's PostgreSQL schema, inserted in one
 * statement (through the provider it would take minutes): m0 ← m1 ← … ← m(depth-1).
 */
export async function insertPostgresChain(pool, depth) {
  await pool.query(
    `INSERT INTO assistant_messages (id, session_id, parent_id, role, content, text_content, created_at)
     SELECT 'm' || i, 'deep', CASE WHEN i = 0 THEN NULL ELSE 'm' || (i - 1) END, 'user',
       json_build_object('id', 'm' || i, 'role', 'user',
         'parts', json_build_array(json_build_object('type', 'text', 'text', 'message ' || i)))::text,
       'message ' || i, clock_timestamp()
     FROM generate_series(0, $1 - 1) AS i ORDER BY i`,
    [depth],
  );
}
