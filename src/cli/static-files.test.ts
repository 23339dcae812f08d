import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { studioFiles } from "./static-files.js";

describe("studioFiles", () => {
  const root = mkdtempSync(join(tmpdir(), "arbor-static-"));
  const studio = join(root, "studio");
  mkdirSync(join(studio, "assets"), { recursive: true });
  writeFileSync(
    join(studio, "index.html"),
    "<!doctype html><title>Studio</title>",
  );
  writeFileSync(join(studio, "assets", "app.js"), "console.log(1);");
  writeFileSync(join(root, "secret.txt"), "not for the web");
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("serves index.html at / and files by path with their content type", async () => {
    const files = await studioFiles(studio);
    const home = (await files("/"))!;
    expect(home.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await home.text()).toBe("<!doctype html><title>Studio</title>");
    const script = (await files("/assets/app.js"))!;
    expect(script.headers.get("content-type")).toBe(
      "text/javascript; charset=utf-8",
    );
    expect(await script.text()).toBe("console.log(1);");
  });

  it("takes the folder as a file URL with a trailing slash, as the CLI passes it", async () => {
    const files = await studioFiles(pathToFileURL(`${studio}/`));
    expect(await (await files("/"))!.text()).toBe(
      "<!doctype html><title>Studio</title>",
    );
  });

  it("leaves unknown paths to the API and never leaves the folder", async () => {
    const files = await studioFiles(studio);
    expect(await files("/missing.js")).toBeNull();
    expect(await files("/../secret.txt")).toBeNull();
    expect(await files("/%2e%2e/secret.txt")).toBeNull();
    expect(await files("/assets")).toBeNull();
    expect(await files("/%E0%A4%A")).toBeNull();
  });

  it("answers / with a page linking the API description when no studio is built", async () => {
    const files = await studioFiles(join(root, "nothing-here"));
    const page = await (await files("/"))!.text();
    expect(page).toContain('<a href="/openapi.json">');
    expect(page).toContain('<a href="/health">');
    expect(await files("/app.js")).toBeNull();
  });
});
