import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromLocal, toLocal } from "./search-time-zone.js";

describe("toLocal / fromLocal", () => {
  it("reads UTC without a formatter, exactly as Intl reads Etc/UTC, for any instant", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -2_208_988_800_000, max: 4_102_444_800_000 }),
        (instant) => {
          expect(toLocal(instant, "UTC")).toBe(toLocal(instant, "Etc/UTC"));
          expect(fromLocal(instant, "UTC")).toBe(fromLocal(instant, "Etc/UTC"));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("applies a zone's offset, daylight-saving time included", () => {
    // 2024-07-01 12:00 UTC is 13:00 in Lisbon (WEST, UTC+1) and 08:00 in New York (EDT, UTC-4).
    const instant = Date.UTC(2024, 6, 1, 12);
    expect(toLocal(instant, "Europe/Lisbon")).toBe(Date.UTC(2024, 6, 1, 13));
    expect(toLocal(instant, "America/New_York")).toBe(Date.UTC(2024, 6, 1, 8));
    expect(fromLocal(Date.UTC(2024, 6, 1, 13), "Europe/Lisbon")).toBe(instant);
  });
});
