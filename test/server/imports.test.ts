// src/server must load in workerd: no file imports a Node built-in, and every package it imports
// is a regular dependency (installed with arbor-memory).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SERVER = join(ROOT, "src/server");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

describe("imports of src/server", () => {
  const files = readdirSync(SERVER, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith(".ts"));
  // Lines of doc comments are skipped: their examples import the package by name.
  const specifiers = files.flatMap((file) =>
    readFileSync(join(SERVER, file), "utf8")
      .split("\n")
      .filter((line) => !/^\s*(\*|\/\/|\/\*\*)/.test(line))
      .flatMap((line) =>
        [...line.matchAll(/from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g)].map(
          (match) => ({ file, specifier: (match[1] ?? match[2])! }),
        ),
      ),
  );

  it("reads the folder", () => {
    expect(files.length).toBeGreaterThan(10);
    expect(
      specifiers.some(({ specifier }) => specifier === "hono/streaming"),
    ).toBe(true);
  });

  it("imports no Node built-in and only regular dependencies", () => {
    const dependencies = Object.keys(pkg.dependencies);
    const bad = specifiers
      .filter(({ specifier }) => !specifier.startsWith("."))
      .filter(
        ({ specifier }) =>
          !dependencies.some(
            (name) => specifier === name || specifier.startsWith(`${name}/`),
          ),
      )
      .map(({ file, specifier }) => `${file} -> ${specifier}`);
    expect(bad).toEqual([]);
  });

  it("is exported as arbor-memory/server", () => {
    expect(pkg.exports["./server"]).toMatchObject({
      types: "./dist/server/index.d.ts",
      import: "./dist/server/index.js",
    });
  });
});
