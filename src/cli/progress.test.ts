import { describe, expect, it } from "vitest";
import { createProgress } from "./progress.js";

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (text: string) => writes.push(text) };
}

describe("createProgress", () => {
  it("redraws one bar on a terminal and clears it when done", () => {
    const terminal = stream(true);
    const progress = createProgress("importing", terminal);
    progress.update(0, 4);
    progress.update(4, 4);
    progress.finish("Imported 4 messages.");
    expect(terminal.writes[0]).toBe(`\rimporting [${"░".repeat(24)}] 0/4`);
    expect(terminal.writes[1]).toBe(`\rimporting [${"█".repeat(24)}] 4/4`);
    expect(terminal.writes.slice(2)).toEqual([
      "\r\x1b[2K",
      "Imported 4 messages.\n",
    ]);
  });

  it("prints plain lines elsewhere, one per tenth of the work", () => {
    const pipe = stream(false);
    const progress = createProgress("importing", pipe);
    for (let done = 0; done <= 100; done++) progress.update(done, 100);
    progress.finish("done");
    expect(pipe.writes).toHaveLength(12);
    expect(pipe.writes[0]).toBe("importing: 0/100\n");
    expect(pipe.writes[1]).toBe("importing: 10/100\n");
    expect(pipe.writes.at(-2)).toBe("importing: 100/100\n");
    expect(pipe.writes.every((line) => !line.includes("\r"))).toBe(true);
  });
});
