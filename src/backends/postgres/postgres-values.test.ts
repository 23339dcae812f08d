import { describe, expect, it } from "vitest";
import { bindable, readable } from "./postgres-values.js";

describe("bindable", () => {
  it("binds undefined as null, arrays and objects as JSON text, and keeps scalars", () => {
    expect(
      bindable([
        undefined,
        null,
        "a",
        1.5,
        true,
        ["x", "y"],
        { summarizer: "s" },
        new Date("2024-01-02T03:04:05.678Z"),
        12n,
      ]),
    ).toEqual([
      null,
      null,
      "a",
      1.5,
      true,
      '["x","y"]',
      '{"summarizer":"s"}',
      "2024-01-02T03:04:05.678Z",
      "12",
    ]);
  });
});

describe("readable", () => {
  it("reads dates, bigints and parsed JSON objects as text, leaving other values alone", () => {
    const row = {
      id: "a",
      n: 3,
      ok: true,
      tags: ["t"],
      bytes: Buffer.from("x"),
    };
    expect(readable([row])[0]).toBe(row);
    expect(
      readable([
        {
          at: new Date("2024-01-02T03:04:05.678Z"),
          seq: 9007199254740993n,
          meta: { tokensBefore: 1 },
        },
      ]),
    ).toEqual([
      {
        at: "2024-01-02T03:04:05.678Z",
        seq: "9007199254740993",
        meta: '{"tokensBefore":1}',
      },
    ]);
    expect(readable(undefined)).toEqual([]);
  });
});
