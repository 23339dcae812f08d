// Builds the web studio (src/studio/app/) into a folder of static files that `arbor serve` hands
// out at `/`: index.html, app.js (every module bundled and minified by rolldown, no imports left)
// and app.css (the stylesheets of src/studio/app/styles/, concatenated in name order). Nothing
// is fetched from a network at run time: no CDN, no web fonts.
//
//   node scripts/build-studio.mjs [--out <dir>]      (default dist/studio)
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const APP = fileURLToPath(new URL("../src/studio/app/", import.meta.url));
const DEFAULT_OUT = fileURLToPath(new URL("../dist/studio/", import.meta.url));

/** Builds the studio into `outDir` and returns the written file names with their sizes. */
export async function buildStudio(outDir = DEFAULT_OUT) {
  await mkdir(outDir, { recursive: true });
  const bundle = await rolldown({
    input: join(APP, "main.ts"),
    platform: "browser",
    logLevel: "warn",
    tsconfig: join(APP, "tsconfig.json"),
  });
  let script;
  try {
    const { output } = await bundle.generate({
      format: "esm",
      minify: true,
      codeSplitting: false,
    });
    script = output.find((chunk) => chunk.type === "chunk" && chunk.isEntry);
  } finally {
    await bundle.close();
  }
  const styleDir = join(APP, "styles");
  const styleNames = (await readdir(styleDir))
    .filter((name) => name.endsWith(".css"))
    .sort();
  const styles = await Promise.all(
    styleNames.map((name) => readFile(join(styleDir, name), "utf8")),
  );
  const files = {
    "index.html": await readFile(join(APP, "index.html"), "utf8"),
    "app.js": script.code,
    "app.css": styles.join("\n"),
  };
  for (const [name, content] of Object.entries(files))
    await writeFile(join(outDir, name), content);
  return Object.entries(files).map(([name, content]) => ({
    name,
    bytes: Buffer.byteLength(content),
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outIndex = process.argv.indexOf("--out");
  const outDir =
    outIndex > 0 ? resolve(process.argv[outIndex + 1]) : DEFAULT_OUT;
  const files = await buildStudio(outDir);
  const summary = files
    .map((file) => `${file.name} ${(file.bytes / 1024).toFixed(1)} KB`)
    .join(", ");
  console.log(`studio built into ${outDir}: ${summary}`);
}
