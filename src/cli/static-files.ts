import { readFile, stat } from "node:fs/promises";
import { extname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const CONTENT_TYPES = new Map([
  [".html", "text/html; charset=utf-8"],
  [".js", "text/javascript; charset=utf-8"],
  [".mjs", "text/javascript; charset=utf-8"],
  [".css", "text/css; charset=utf-8"],
  [".json", "application/json; charset=utf-8"],
  [".svg", "image/svg+xml"],
  [".png", "image/png"],
  [".ico", "image/x-icon"],
  [".woff2", "font/woff2"],
  [".txt", "text/plain; charset=utf-8"],
  [".map", "application/json; charset=utf-8"],
]);

/** The page `/` answers when no studio is built. */
const LANDING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Arbor</title></head>
<body>
<h1>Arbor</h1>
<p>The HTTP API is running. The studio is not built here (<code>npm run build</code> puts it in <code>dist/studio/</code>).</p>
<ul><li><a href="/openapi.json">/openapi.json</a>: the API description</li><li><a href="/health">/health</a></li></ul>
</body></html>
`;

/** Answers a GET for a static path, or `null` to let the API answer it. */
export type StaticHandler = (pathname: string) => Promise<Response | null>;

/**
 * Serves the built studio from `folder` (a `file:` URL or path): `/` is `index.html`, other
 * paths map to files inside the folder and never outside it. Without the folder, `/` answers a
 * small page linking `/openapi.json` and `/health`.
 */
export async function studioFiles(
  folder: URL | string,
): Promise<StaticHandler> {
  // resolve() also drops the trailing slash of a folder URL, which the containment check needs.
  const root = resolve(
    typeof folder === "string" ? folder : fileURLToPath(folder),
  );
  if (!(await isFile(resolve(root, "index.html")))) {
    return async (pathname) =>
      pathname === "/" || pathname === "/index.html"
        ? new Response(LANDING_PAGE, {
            headers: { "content-type": "text/html; charset=utf-8" },
          })
        : null;
  }
  return async (pathname) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return null;
    }
    const relative =
      decoded === "/" ? "index.html" : decoded.replace(/^\/+/, "");
    const file = resolve(root, relative);
    // A `..` or an absolute segment must not reach files outside the studio folder.
    if (!file.startsWith(root + sep) || decoded.includes("\0")) return null;
    if (!(await isFile(file))) return null;
    return new Response(await readFile(file), {
      headers: {
        "content-type":
          CONTENT_TYPES.get(extname(file).toLowerCase()) ??
          "application/octet-stream",
        "cache-control":
          relative === "index.html" ? "no-cache" : "public, max-age=300",
      },
    });
  };
}

// --- Internal helpers ---

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
