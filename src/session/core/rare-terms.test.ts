import { describe, expect, it } from "vitest";
import { rareCountCap, rareTermArm } from "./rare-terms.js";

describe("rareTermArm", () => {
  const window = 200;

  it("takes the rarest terms while their matches stay within four windows", () => {
    // Counts 5, 900 (past the cap of 800), 300 and 600: 5 + 300 fit, adding 600 would not.
    expect(rareCountCap(window)).toBe(800);
    expect(rareTermArm("any", [5, 900, 300, 600], window)).toEqual({
      rare: [0, 2],
      rareLimit: 800,
      anyWindow: 200,
    });
  });

  it("ranks every match instead when every term is that rare", () => {
    expect(rareTermArm("any", [10, 40], window)).toEqual({
      rare: null,
      rareLimit: 0,
      anyWindow: 200,
    });
    expect(rareTermArm("any", [300, 400], window)).toEqual({
      rare: null,
      rareLimit: 0,
      anyWindow: 700,
    });
  });

  it("changes nothing without a rare term, for one term, or under match all", () => {
    const none = { rare: null, rareLimit: 0, anyWindow: 200 };
    expect(rareTermArm("any", [801, 5000], window)).toEqual(none);
    expect(rareTermArm("any", [3], window)).toEqual(none);
    expect(rareTermArm("all", [3, 5000], window)).toEqual(none);
  });
});
