import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitsUtf8, utf8Length } from "./utf8.js";

describe("utf8Length", () => {
  it("counts what TextEncoder writes, lone surrogates as U+FFFD", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
      }),
    );
  });
});

describe("fitsUtf8", () => {
  it("agrees with the exact count on both sides of every bound", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 40 }),
        fc.integer({ min: 0, max: 200 }),
        (text, maxBytes) => {
          expect(fitsUtf8(text, maxBytes)).toBe(utf8Length(text) <= maxBytes);
        },
      ),
    );
  });

  it("answers near the bound by counting: three-byte and four-byte characters", () => {
    // 2 units of 3 bytes each: 6 bytes, 2 units long (inside the band where it must count).
    expect(fitsUtf8("€€", 6)).toBe(true);
    expect(fitsUtf8("€€", 5)).toBe(false);
    // A surrogate pair: 2 units, 4 bytes.
    expect(fitsUtf8("😀", 4)).toBe(true);
    expect(fitsUtf8("😀", 3)).toBe(false);
    expect(fitsUtf8("ab", 1)).toBe(false);
  });
});
