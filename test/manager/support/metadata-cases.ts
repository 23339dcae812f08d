// Session metadata writes on one backend: a write over a limit is refused with
// METADATA_TOO_LARGE before anything is stored, and a large but allowed create is all or
// nothing (a failure in the middle, raised by a trigger in the real database, leaves no session
// and no entry).
import { expect, it } from "vitest";
import { METADATA_LIMITS } from "../../../src/session/manager/metadata-limits.js";
import type { SessionManager } from "../../../src/session/index.js";

export interface MetadataBackend {
  manager: () => SessionManager;
  /**
   * Makes the store itself fail the write of the config key `meta:<key>` (a trigger), so a
   * create fails after part of its entries would have been written. Absent for a store that
   * has no such hook (in memory).
   */
  failOnKey?: (key: string) => Promise<void>;
}

/** `count` entries `k000`… with values of `valueLength` characters. */
function entries(count: number, valueLength: number): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, index) => [
      `k${String(index).padStart(3, "0")}`,
      `${index}`.padEnd(valueLength, "v"),
    ]),
  );
}

export function metadataCases(backend: MetadataBackend): void {
  const refused = async (
    manager: SessionManager,
    id: string,
    metadata: Record<string, string>,
    limit: string,
  ) => {
    const before = (await manager.list({ limit: 1000 })).length;
    const error = await manager.create("Over", { id, metadata }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: "METADATA_TOO_LARGE" });
    expect((error as Error).message).toContain(limit);
    expect(await manager.get(id)).toBeNull();
    expect(await manager.listMetadata(id)).toEqual({});
    expect((await manager.list({ limit: 1000 })).length).toBe(before);
  };

  it("refuses more entries than the limit, naming it, and writes nothing", async () => {
    const manager = backend.manager();
    await refused(
      manager,
      "over-count",
      entries(METADATA_LIMITS.maxEntries + 1, 4),
      String(METADATA_LIMITS.maxEntries),
    );
    // The size of the request that used to run for minutes: refused as fast.
    await refused(manager, "over-50k", entries(50_000, 4), "50000");
  });

  it("refuses a value over the length limit and a total over the byte limit", async () => {
    const manager = backend.manager();
    await refused(
      manager,
      "over-value",
      { plan: "x".repeat(METADATA_LIMITS.maxValueLength + 1) },
      String(METADATA_LIMITS.maxValueLength),
    );
    await refused(
      manager,
      "over-key",
      { ["k".repeat(METADATA_LIMITS.maxKeyLength + 1)]: "v" },
      String(METADATA_LIMITS.maxKeyLength),
    );
    await refused(
      manager,
      "over-bytes",
      entries(METADATA_LIMITS.maxEntries, 700),
      String(METADATA_LIMITS.maxTotalBytes),
    );
  });

  it("stores a large but allowed metadata whole, and setMetadata keeps to the limits", async () => {
    const manager = backend.manager();
    const metadata = entries(METADATA_LIMITS.maxEntries, 600);
    await manager.create("Big", { id: "big", metadata, ownerId: "acme" });
    expect(await manager.listMetadata("big")).toEqual(metadata);
    expect(await manager.getOwner("big")).toBe("acme");
    // A new key over the count is refused; an existing key may change.
    await expect(
      manager.setMetadata("big", "one-more", "v"),
    ).rejects.toMatchObject({ code: "METADATA_TOO_LARGE" });
    expect(await manager.getMetadata("big", "one-more")).toBeNull();
    await manager.setMetadata("big", "k000", "changed");
    expect(await manager.getMetadata("big", "k000")).toBe("changed");
  });

  it("a create that fails in the middle of its metadata leaves no session and no entry", async ({
    skip,
  }) => {
    if (!backend.failOnKey) return skip("no way to fail this store's write");
    const manager = backend.manager();
    await backend.failOnKey("boom");
    const metadata = {
      ...entries(50, 100),
      boom: "fails here",
      ...Object.fromEntries(Object.entries(entries(99, 100)).slice(50)),
    };
    expect(Object.keys(metadata)).toHaveLength(METADATA_LIMITS.maxEntries);
    await expect(
      manager.create("Half", { id: "half", metadata, ownerId: "acme" }),
    ).rejects.toThrow();
    expect(await manager.get("half")).toBeNull();
    expect(await manager.listMetadata("half")).toEqual({});
    expect(await manager.getOwner("half")).toBeNull();
    expect(
      (await manager.list({ limit: 1000 })).map((info) => info.id),
    ).not.toContain("half");
  });
}
