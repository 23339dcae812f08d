// R2SkillProvider against miniflare's real local R2 bucket (the workerd implementation, reached
// through miniflare's Node proxy), plus one run inside workerd itself to prove the module loads
// there with no Node imports.
import { readFileSync } from "node:fs";
import { Miniflare } from "miniflare";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  R2SkillProvider,
  type R2BucketLike,
  type R2ListOptionsLike,
} from "../../src/session/context/r2-skill-provider.js";

const WORKER = "export default { fetch() { return new Response('ok') } }";

let mf: Miniflare;
let bucket: R2BucketLike;
let prefixCounter = 0;

beforeAll(async () => {
  mf = new Miniflare({ modules: true, script: WORKER, r2Buckets: ["SKILLS"] });
  bucket = await r2Bucket(mf, "SKILLS");
});

afterAll(async () => {
  await mf?.dispose();
});

/**
 * miniflare's real R2 bucket. Its declared type needs `@cloudflare/workers-types`, which this
 * repo does not install (without it the type collapses to `Request`), hence the cast; at run
 * time it is the real bucket, and a Workers `R2Bucket` satisfies `R2BucketLike` structurally.
 */
async function r2Bucket(
  instance: Miniflare,
  binding: string,
): Promise<R2BucketLike> {
  return (await instance.getR2Bucket(binding)) as unknown as R2BucketLike;
}

/** The bucket is shared by the tests; each one works under its own prefix. */
function freshPrefix(): string {
  return `t${++prefixCounter}/skills/`;
}

/** Wraps the real bucket to count calls and, optionally, force a small page size. */
function counting(
  inner: R2BucketLike,
  limit?: number,
): { bucket: R2BucketLike; calls: { list: number; get: number; put: number } } {
  const calls = { list: 0, get: 0, put: 0 };
  return {
    calls,
    bucket: {
      list(options: R2ListOptionsLike) {
        calls.list++;
        return inner.list(
          limit === undefined
            ? options
            : ({ ...options, limit } as R2ListOptionsLike),
        );
      },
      get(key) {
        calls.get++;
        return inner.get(key);
      },
      put(key, value, options) {
        calls.put++;
        return inner.put(key, value, options);
      },
    },
  };
}

async function seed(
  prefix: string,
  entries: Array<[key: string, content: string, description?: string]>,
): Promise<void> {
  for (const [key, content, description] of entries) {
    await bucket.put(
      prefix + key,
      content,
      description === undefined ? {} : { customMetadata: { description } },
    );
  }
}

describe("R2SkillProvider over miniflare R2", () => {
  it("lists keys relative to the prefix, with descriptions from customMetadata", async () => {
    const prefix = freshPrefix();
    await seed(prefix, [
      ["api-ref", "# API", "HTTP API reference"],
      ["guides/deploy", "Deploy steps", "How to deploy"],
      ["style", "Be terse"],
    ]);
    // Objects outside the prefix are not listed.
    await bucket.put(`other/${prefix}leak`, "no");

    const provider = new R2SkillProvider(bucket, { prefix });
    expect(await provider.get()).toBe(
      [
        "- api-ref: HTTP API reference",
        "- guides/deploy: How to deploy",
        "- style",
      ].join("\n"),
    );
  });

  it("get() is null when nothing is listed", async () => {
    const provider = new R2SkillProvider(bucket, { prefix: freshPrefix() });
    expect(await provider.get()).toBeNull();
  });

  it("without a prefix, lists whole storage keys", async () => {
    const local = new Miniflare({
      modules: true,
      script: WORKER,
      r2Buckets: ["B"],
    });
    try {
      const own = await r2Bucket(local, "B");
      await own.put("skills/api-ref", "x", {
        customMetadata: { description: "API" },
      });
      await own.put("top", "y");
      const provider = new R2SkillProvider(own);
      expect(await provider.get()).toBe("- skills/api-ref: API\n- top");
      expect(await provider.load("skills/api-ref")).toBe("x");
    } finally {
      await local.dispose();
    }
  });

  it("follows the cursor across pages (forced page size of 2)", async () => {
    const prefix = freshPrefix();
    const keys = ["a", "b", "c", "d", "e"];
    await seed(
      prefix,
      keys.map((key) => [key, `body ${key}`, `about ${key}`]),
    );
    const spy = counting(bucket, 2);

    const listing = await new R2SkillProvider(spy.bucket, { prefix }).get();

    expect(listing).toBe(
      keys.map((key) => `- ${key}: about ${key}`).join("\n"),
    );
    expect(spy.calls.list).toBe(3);
  });

  it("follows the cursor across R2's own pages (no forced limit)", async () => {
    // With `include`, R2 may return fewer objects than `limit` per page to make room for the
    // metadata; miniflare does the same (100 per page), so 250 objects span several real pages.
    const prefix = freshPrefix();
    const keys = Array.from(
      { length: 250 },
      (_, index) => `skill-${String(index).padStart(3, "0")}`,
    );
    for (let start = 0; start < keys.length; start += 50) {
      await Promise.all(
        keys
          .slice(start, start + 50)
          .map((key) => bucket.put(prefix + key, key)),
      );
    }
    const spy = counting(bucket);

    const listing = await new R2SkillProvider(spy.bucket, { prefix }).get();

    expect(listing?.split("\n")).toEqual(keys.map((key) => `- ${key}`));
    expect(spy.calls.list).toBeGreaterThan(1);
  });

  it("applies the allow-list to get() and load(); a disallowed load never reads", async () => {
    const prefix = freshPrefix();
    await seed(prefix, [
      ["public", "shown", "Public skill"],
      ["secret", "hidden", "Secret skill"],
    ]);
    const spy = counting(bucket);
    const provider = new R2SkillProvider(spy.bucket, {
      prefix,
      keys: ["public", "missing"],
    });

    expect(await provider.get()).toBe("- public: Public skill");
    expect(await provider.load("public")).toBe("shown");
    expect(spy.calls.get).toBe(1);

    expect(await provider.load("secret")).toBeNull();
    expect(spy.calls.get).toBe(1);
    // The full storage key is not an allowed key either.
    expect(await provider.load(`${prefix}public`)).toBeNull();
    expect(spy.calls.get).toBe(1);
  });

  it("an empty allow-list allows every key", async () => {
    const prefix = freshPrefix();
    await seed(prefix, [["one", "1"]]);
    const provider = new R2SkillProvider(bucket, { prefix, keys: [] });
    expect(await provider.get()).toBe("- one");
    expect(await provider.load("one")).toBe("1");
  });

  it("load() of a missing key is null; an allowed missing key is read once", async () => {
    const prefix = freshPrefix();
    const spy = counting(bucket);
    const provider = new R2SkillProvider(spy.bucket, {
      prefix,
      keys: ["missing"],
    });
    expect(await provider.load("missing")).toBeNull();
    expect(spy.calls.get).toBe(1);
    expect(
      await new R2SkillProvider(bucket, { prefix }).load("nope"),
    ).toBeNull();
  });

  it("set() stores under prefix + key, with the description as customMetadata", async () => {
    const prefix = freshPrefix();
    const provider = new R2SkillProvider(bucket, { prefix });

    await provider.set("pirate-style", "Talk like a pirate.", "Pirate voice");
    await provider.set("plain", "No description.");

    const described = await bucket.list({
      prefix,
      include: ["customMetadata"],
    });
    expect(
      described.objects.map((object) => [object.key, object.customMetadata]),
    ).toEqual([
      [`${prefix}pirate-style`, { description: "Pirate voice" }],
      [`${prefix}plain`, {}],
    ]);
    expect(await provider.load("pirate-style")).toBe("Talk like a pirate.");
    expect(await provider.get()).toBe("- pirate-style: Pirate voice\n- plain");

    // Overwriting without a description drops the old one, as R2 replaces the whole object.
    await provider.set("pirate-style", "Arr.");
    expect(await provider.get()).toBe("- pirate-style\n- plain");
    expect(await provider.load("pirate-style")).toBe("Arr.");
  });

  it("set() ignores the allow-list but warns when the key will never be listed", async () => {
    const prefix = freshPrefix();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const provider = new R2SkillProvider(bucket, {
        prefix,
        keys: ["listed"],
      });

      await provider.set("listed", "ok", "Listed");
      expect(warn).not.toHaveBeenCalled();

      await provider.set("unlisted", "written anyway");
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toContain('"unlisted"');
      expect(warn.mock.calls[0]?.[0]).toContain("[arbor] [r2]");

      expect(await (await bucket.get(`${prefix}unlisted`))?.text()).toBe(
        "written anyway",
      );
      expect(await provider.get()).toBe("- listed: Listed");
      expect(await provider.load("unlisted")).toBeNull();
    } finally {
      warn.mockRestore();
    }
  });

  it("skips an object named exactly like the prefix (a folder marker)", async () => {
    const prefix = freshPrefix();
    await bucket.put(prefix, "");
    await seed(prefix, [["real", "x"]]);
    expect(await new R2SkillProvider(bucket, { prefix }).get()).toBe("- real");
  });
});

describe("R2SkillProvider inside workerd", () => {
  it("loads with no Node imports and works against the R2 binding", async () => {
    const source = readFileSync(
      new URL(
        "../../src/session/context/r2-skill-provider.ts",
        import.meta.url,
      ),
      "utf8",
    );
    const compiled = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
      },
    }).outputText;
    const worker = new Miniflare({
      modules: [
        {
          type: "ESModule",
          path: "/worker/index.js",
          contents: `
            import { R2SkillProvider } from "./r2-skill-provider.js";
            export default {
              async fetch(request, env) {
                const provider = new R2SkillProvider(env.SKILLS, { prefix: "skills/" });
                await provider.set("greet", "Say hello.", "Greeting");
                return Response.json({
                  list: await provider.get(),
                  body: await provider.load("greet"),
                  missing: await provider.load("nope"),
                });
              },
            };`,
        },
        {
          type: "ESModule",
          path: "/worker/r2-skill-provider.js",
          contents: compiled,
        },
      ],
      modulesRoot: "/worker",
      r2Buckets: ["SKILLS"],
    });
    try {
      const response = await worker.dispatchFetch("http://localhost/");
      expect(await response.json()).toEqual({
        list: "- greet: Greeting",
        body: "Say hello.",
        missing: null,
      });
    } finally {
      await worker.dispose();
    }
  });
});
