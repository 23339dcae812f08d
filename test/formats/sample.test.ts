// examples/sample/sample.arbor.jsonl, which `arbor serve` loads into an empty database, imports
// with its branches, overlay, tool call and memory block history, on SQLite as the CLI configures it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  importConversations,
  parseConversations,
  toMarkdown,
} from "../../src/formats/index.js";
import { branchesOf, ids, sqliteManager, textOf } from "./support.js";

const SAMPLE = readFileSync(
  new URL("../../examples/sample/sample.arbor.jsonl", import.meta.url),
  "utf8",
);

describe("the sample conversation", () => {
  it("imports and reads back with the overlay applied and every branch", async () => {
    const manager = sqliteManager();
    const conversations = parseConversations(SAMPLE, {
      fileName: "sample.arbor.jsonl",
    });
    expect(conversations).toHaveLength(1);
    const [info] = await importConversations(manager, conversations);
    expect(info!.name).toBe("Planning the Tidepool 2.0 launch");
    const session = manager.getSession(info!.id);
    expect(await session.countMessages()).toBe(25);

    const branches = await branchesOf(manager, info!.id);
    expect(branches.map((branch) => branch.at(-1))).toEqual([
      "m12",
      "m19",
      "m25",
    ]);
    expect(
      (await session.getBranches("m11")).map((message) => message.id),
    ).toEqual(["m12", "m13"]);
    expect(
      (await session.getBranches("m17")).map((message) => message.id),
    ).toEqual(["m18", "m20"]);

    const history = await session.getHistory();
    expect(history[0]!.id).toMatch(/^compaction_/);
    expect(textOf(history[0])).toContain("Budget $4,000");
    // m01..m08 are behind the overlay; the regenerated m13 and the edited m20 are on the path.
    expect(ids(history).slice(1)).toEqual([
      "m09",
      "m10",
      "m11",
      "m13",
      "m14",
      "m15",
      "m16",
      "m17",
      "m20",
      "m21",
      "m22",
      "m23",
      "m24",
      "m25",
    ]);

    const tool = history.find((message) => message.id === "m10")!.parts[1]!;
    expect(tool).toMatchObject({
      type: "tool-query_analytics",
      state: "output-available",
      output: { rate: 0.29 },
    });

    const versions = await session.getContextBlockHistory("memory");
    expect(versions).toHaveLength(3);
    expect(versions[2]!.content).toContain("BETA30");
    expect(session.getContextBlock("memory")!.content).toBe(
      versions[2]!.content,
    );

    const markdown = toMarkdown(info!, history);
    expect(markdown).toMatch(/^# Planning the Tidepool 2.0 launch\n/);
    expect(markdown).toContain(
      '**Tool `query_analytics`** `{"metric":"waitlist_conversion","launch":"tidepool-1.0","window_days":7}` → `{"signups":2100,"activated_7d":610,"rate":0.29}`',
    );
  });
});
