// Keeps docs/server.md honest: its TypeScript blocks run as printed (imports pointed at the
// sources; what they print is checked against their `// →` comments), its Durable Object block
// runs in workerd, every route of /openapi.json has a curl example, and the error table matches
// STATUS_BY_CODE.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { afterAll, describe, expect, it } from "vitest";
import { createApp, STATUS_BY_CODE } from "../../src/server/index.js";
import { SessionManager } from "../../src/session/index.js";
import { bundleWorker } from "../providers/support/bundle-worker.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGE = readFileSync(join(ROOT, "docs/server.md"), "utf8");
const ENTRIES: Record<string, string> = {
  "arbor-memory/server": "src/server/index.ts",
  "arbor-memory/session": "src/session/index.ts",
  "arbor-memory/sqlite": "src/sqlite/index.ts",
};
const folder = mkdtempSync(join(tmpdir(), "arbor-server-doc-"));
const printed: string[] = [];
(globalThis as Record<string, unknown>).__arborDocLog = (
  ...values: unknown[]
) => printed.push(values.map(String).join(" "));

describe("docs/server.md", () => {
  const blocks = codeBlocks("ts");

  it("serves the Node example on a port and stops it on SIGINT", async () => {
    const node = blocks.find((code) => code.includes("@hono/node-server"))!;
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    process.env.PORT = String(port);
    const signals = process.listenerCount("SIGINT");
    await runModule(
      "node",
      node.replace('"arbor.db"', JSON.stringify(join(folder, "arbor.db"))),
    );
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(await health.json()).toEqual({ status: "ok" });
    const blocksAnswer = await fetch(`http://127.0.0.1:${port}/v1/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "From the docs" }),
    });
    expect(blocksAnswer.status).toBe(201);
    expect(process.listenerCount("SIGINT")).toBe(signals + 1);
    process.emit("SIGINT");
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });

  it("runs the auth example and prints what its comments say", async () => {
    const auth = blocks.find((code) => code.includes("SqlApiKeyStore(db)"))!;
    printed.length = 0;
    await runModule("auth", auth);
    const expected = [
      ...auth.matchAll(/console\.log\(.*\); \/\/ → (.*)$/gm),
    ].map((m) => m[1]);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    expect(printed).toEqual(expected);
  });

  it(
    "runs the Durable Object example in workerd",
    { timeout: 120_000 },
    async () => {
      const code = pointImports(
        codeBlocks("js").find((block) => block.includes("DurableObject"))!,
        false,
      );
      const worker = new Miniflare({
        modules: true,
        script: await bundleWorker({ source: code }),
        compatibilityDate: "2025-01-01",
        compatibilityFlags: ["nodejs_compat"],
        durableObjects: { MEMORY: { className: "Memory", useSQLite: true } },
      });
      try {
        const health = await worker.dispatchFetch("http://do/health");
        expect(await health.json()).toEqual({ status: "ok" });
        expect(
          (await worker.dispatchFetch("http://do/v1/sessions")).status,
        ).toBe(401);
      } finally {
        await worker.dispose();
      }
    },
  );

  it("has a curl example for every route of /openapi.json", async () => {
    const app = createApp({ manager: SessionManager.inMemory() });
    const document = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, object>;
    };
    const curls = codeBlocks("sh")
      .join("\n")
      .replaceAll("\\\n", " ")
      .split("\n")
      .filter((l) => l.startsWith("curl"));
    const missing: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      const pattern = path.replace(/\{\w+\}/g, "(\\$\\w+|[\\w-]+)");
      const url = new RegExp(`"\\$ARBOR${pattern}(\\?[^"]*)?"`);
      for (const method of Object.keys(methods)) {
        const found = curls.some((line) => {
          const verb =
            /-X (\w+)/.exec(line)?.[1] ??
            (line.includes("--data") || line.includes(" -d ") ? "POST" : "GET");
          return verb === method.toUpperCase() && url.test(line);
        });
        if (!found) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("lists every error code under its status", () => {
    const rows = new Map(
      [...PAGE.matchAll(/^\| (\d{3})\s+\| (.*) \|$/gm)].map((m) => [
        Number(m[1]),
        m[2]!,
      ]),
    );
    for (const [code, status] of Object.entries(STATUS_BY_CODE)) {
      if (code === "SESSION_FORBIDDEN") continue;
      expect(rows.get(status) ?? "", `${code} → ${status}`).toContain(
        `\`${code}\``,
      );
    }
  });
});

afterAll(() => {
  delete process.env.PORT;
});

// --- Internal helpers ---

function codeBlocks(language: string): string[] {
  return [
    ...PAGE.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g")),
  ].map((m) => m[1]!);
}

/** The block's package imports pointed at the sources (as file paths for the bundler). */
function pointImports(code: string, log = true): string {
  let pointed = code;
  for (const [entry, file] of Object.entries(ENTRIES))
    pointed = pointed.replaceAll(
      `"${entry}"`,
      JSON.stringify(join(ROOT, file)),
    );
  return log
    ? pointed.replaceAll("console.log(", "(globalThis as any).__arborDocLog(")
    : pointed;
}

async function runModule(name: string, code: string): Promise<void> {
  const file = join(folder, `${name}.ts`);
  writeFileSync(file, pointImports(code));
  await import(file);
}
