// The studio as `arbor serve` composes it: the HTTP API (createApp over a SessionManager on a
// SQLite file) and the built studio files at `/`, on @hono/node-server at a free local port.
import { readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { extname, join } from "node:path";
import { serve } from "@hono/node-server";
import { createApp, type KeyVerifier } from "../../../src/server/index.js";
import { SessionManager } from "../../../src/session/index.js";
import { openSqlite } from "../../../src/sqlite/index.js";

const CONTENT_TYPES = new Map([
  [".html", "text/html; charset=utf-8"],
  [".js", "text/javascript; charset=utf-8"],
  [".css", "text/css; charset=utf-8"],
]);

/** Manager configuration shared by the server and the "other process" writer. */
export function configuredManager(file: string): SessionManager {
  return SessionManager.create(openSqlite(file))
    .withContext("memory", {
      maxTokens: 200,
      description: "What the agent remembers",
    })
    .withCachedPrompt();
}

/** A running server and the manager behind it. */
export interface StudioServer {
  url: string;
  manager: SessionManager;
  close: () => Promise<void>;
}

/** Serves the API over `file` and the studio files from `studioDir` (on `port`, 0: any free one). */
export async function startStudioServer(
  file: string,
  studioDir: string,
  auth?: KeyVerifier,
  port = 0,
): Promise<StudioServer> {
  const manager = configuredManager(file);
  const app = createApp(auth ? { manager, auth } : { manager });
  const handler = async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (pathname.startsWith("/v1/") || pathname === "/health")
      return app.fetch(request);
    const name = pathname === "/" ? "index.html" : pathname.slice(1);
    const type = CONTENT_TYPES.get(extname(name));
    if (!type || name.includes("/") || name.includes(".."))
      return new Response("not found", { status: 404 });
    try {
      return new Response(await readFile(join(studioDir, name)), {
        headers: { "content-type": type },
      });
    } catch {
      return new Response("not found", { status: 404 });
    }
  };
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: handler, port, hostname: "127.0.0.1" }, () =>
      resolve(started),
    );
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    manager,
    close: () =>
      new Promise<void>((resolve) => {
        // Open event streams would keep close() waiting: end them first.
        (
          server as unknown as { closeAllConnections?: () => void }
        ).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
