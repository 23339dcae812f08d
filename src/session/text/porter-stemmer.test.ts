import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { porterStem } from "./porter-stemmer.js";

/**
 * Words covering every step of the algorithm, with Porter's published examples; the expected
 * stems are read from SQLite's FTS5 `porter` tokenizer itself, so the in-memory backend stems as
 * the SQLite backend does.
 */
const WORDS =
  `caresses ponies ties caress cats feed agreed plastered bled motoring sing
  conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky
  relational conditional rational valenci hesitanci digitizer conformabli radicalli
  differentli vileli analogousli vietnamization predication operator feudalism decisiveness
  hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize
  electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic
  adjustable defensible irritant replacement adjustment dependent adoption homologou
  communism activate angulariti homologous effective bowdlerize probate rate cease controll
  roll connections connected connecting connection deployments deployment testing servers
  running generalization oscillators archaeology apologies biology analogies friday monday
  yesterday support group went going goes beach shipped shipping meeting conversations
  remembered activities partake researching adoptions agencies painted painting kids`
    .trim()
    .split(/\s+/);

describe("porterStem", () => {
  it("stems as SQLite FTS5's porter tokenizer does", () => {
    const db = new Database(":memory:");
    db.exec(
      "CREATE VIRTUAL TABLE words USING fts5(word, tokenize = 'porter ascii')",
    );
    db.exec("CREATE VIRTUAL TABLE terms USING fts5vocab(words, 'instance')");
    const insert = db.prepare("INSERT INTO words (rowid, word) VALUES (?, ?)");
    WORDS.forEach((word, index) => insert.run(index + 1, word));
    const stems = new Map(
      (
        db.prepare("SELECT doc, term FROM terms").all() as Array<{
          doc: number;
          term: string;
        }>
      ).map((row) => [WORDS[row.doc - 1]!, row.term]),
    );
    db.close();
    const mine = new Map(WORDS.map((word) => [word, porterStem(word)]));
    expect(Object.fromEntries(mine)).toEqual(Object.fromEntries(stems));
  });

  it("leaves tokens shorter than 3 or longer than 64 characters alone", () => {
    expect(porterStem("is")).toBe("is");
    const long = "s".repeat(65);
    expect(porterStem(long)).toBe(long);
  });
});
