import { describe, expect, it } from "vitest";
import { rareCountCap, rareTermArm } from "./rare-terms.js";

describe("rareTermArm", () => {
  const window = 200;

  it("takes the rarest terms while their matches stay within eight windows", () => {
    // Counts 5, 1700 (past the cap of 1,600), 600 and 1,200: 5 + 600 fit, adding 1,200 would not.
    expect(rareCountCap(window)).toBe(1_600);
    expect(rareCountCap(2_000)).toBe(8_000);
    expect(rareTermArm("any", [5, 1_700, 600, 1_200], window)).toEqual({
      rare: [0, 2],
      rareLimit: 1_600,
      anyWindow: 200,
    });
  });

  it("ranks every match instead when every term is that rare", () => {
    expect(rareTermArm("any", [10, 40], window)).toEqual({
      rare: null,
      rareLimit: 0,
      anyWindow: 200,
    });
    expect(rareTermArm("any", [300, 900], window)).toEqual({
      rare: null,
      rareLimit: 0,
      anyWindow: 1_200,
    });
  });

  it("changes nothing without a rare term, for one term, or under match all", () => {
    const none = { rare: null, rareLimit: 0, anyWindow: 200 };
    expect(rareTermArm("any", [1_601, 5_000], window)).toEqual(none);
    expect(rareTermArm("any", [3], window)).toEqual(none);
    expect(rareTermArm("all", [3, 5000], window)).toEqual(none);
  });
});
