import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  CLI,
  runCli,
  startServe,
  temporaryFolder,
  type ServeProcess,
} from "./support/cli.js";
import { seedBranchedDatabase } from "./support/seed.js";

/** The studio the build puts beside the CLI (dist/studio/index.html), when there is one. */
const STUDIO_INDEX = join(dirname(CLI), "../studio/index.html");

/** A JSON POST over `agent` (none: a connection of its own, closed after the answer). */
function postJson(
  base: string,
  path: string,
  json: unknown,
  agent: http.Agent | false = false,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${base}${path}`,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json" },
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode!, body }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(JSON.stringify(json));
  });
}

describe("arbor keys and arbor serve", () => {
  const folder = temporaryFolder();
  const path = (name: string) => join(folder.path, name);
  let server: ServeProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });
  afterAll(() => folder.remove());

  it("creates, lists and revokes keys; serve then requires a valid key", async () => {
    const db = path("keys.db");
    await seedBranchedDatabase(db);
    const created = await runCli([
      "keys",
      "create",
      "--tenant",
      "acme",
      "--name",
      "ci",
      "--db",
      db,
    ]);
    expect(created.code).toBe(0);
    const [summary, key] = created.stdout.trim().split("\n") as [
      string,
      string,
    ];
    expect(key).toMatch(/^arbor_sk_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toContain("not shown again");
    const keyId = /^Created key (\S+) for tenant "acme"\.$/.exec(summary)![1]!;

    const listed = await runCli(["keys", "list", "--db", db]);
    expect(listed.stdout).toMatch(
      new RegExp(`^${keyId}\\s+acme\\s+\\S+ \\S+\\s+ci$`, "m"),
    );
    expect(listed.stdout).not.toContain(key);

    server = await startServe(["--db", db]);
    expect(server.output().stdout).toContain("auth on");
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const anonymous = await fetch(`${server.url}/v1/sessions`);
    expect(anonymous.status).toBe(401);
    const withKey = await fetch(`${server.url}/v1/sessions`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(withKey.status).toBe(200);
    // The key's tenant sees its own session only, not the other owner's.
    const { sessions } = (await withKey.json()) as {
      sessions: Array<{ name: string }>;
    };
    expect(sessions.map((session) => session.name)).toEqual([
      "Deployment planning",
    ]);
    const wrongKey = await fetch(`${server.url}/v1/sessions`, {
      headers: { authorization: `Bearer ${key.slice(0, -2)}xx` },
    });
    expect(wrongKey.status).toBe(401);
    expect(await server.stop()).toBe(0);
    server = undefined;

    // The last key: the seed's sessions have owners, so it goes only with --yes.
    const revoked = await runCli([
      "keys",
      "revoke",
      keyId,
      "--yes",
      "--db",
      db,
    ]);
    expect(revoked.stdout).toBe(`Revoked ${keyId}.\n`);
    expect((await runCli(["keys", "list", "--db", db])).stdout).toBe(
      "No API keys.\n",
    );
    const again = await runCli(["keys", "revoke", keyId, "--db", db]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `arbor: API_KEY_NOT_FOUND: No API key "${keyId}"`,
    );
  });

  it("sessions written before the first key reach it once assigned to its tenant", async () => {
    const db = path("sample-then-key.db");
    server = await startServe(["--db", db]);
    expect(await server.stop()).toBe(0);
    server = undefined;
    const created = await runCli([
      "keys",
      "create",
      "--tenant",
      "me",
      "--db",
      db,
    ]);
    const key = created.stdout.trim().split("\n")[1]!;
    expect(created.stderr).toContain(
      "arbor sessions assign --unowned --tenant me",
    );
    const names = async () => {
      const response = await fetch(`${server!.url}/v1/sessions`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await response.json()) as {
        sessions: Array<{ name: string }>;
      };
      return body.sessions.map((session) => session.name);
    };
    server = await startServe(["--db", db]);
    expect(server.output().stdout).toContain("Some sessions have no owner");
    expect(await names()).toEqual([]);
    expect(await server.stop()).toBe(0);

    const usage = await runCli([
      "sessions",
      "assign",
      "--tenant",
      "me",
      "--db",
      db,
    ]);
    expect(usage.code).toBe(2);
    const assigned = await runCli([
      "sessions",
      "assign",
      "--unowned",
      "--tenant",
      "me",
      "--db",
      db,
    ]);
    expect(assigned.stdout).toBe('1 session now belongs to "me".\n');
    server = await startServe(["--db", db]);
    expect(server.output().stdout).not.toContain("Some sessions have no owner");
    expect(await names()).toEqual(["Planning the Tidepool 2.0 launch"]);
    const other = await runCli([
      "keys",
      "create",
      "--tenant",
      "them",
      "--db",
      db,
    ]);
    expect(other.stderr).not.toContain("sessions assign");
  });

  it("refuses a non-loopback host while no key exists, and allows it once one does", async () => {
    const db = path("public.db");
    const refused = await runCli([
      "serve",
      "--host",
      "0.0.0.0",
      "--port",
      "0",
      "--db",
      db,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "arbor: AUTH_REQUIRED: Refusing to listen on 0.0.0.0 without an API key",
    );
    expect(refused.stderr).toContain("arbor keys create --tenant <name>");

    await runCli(["keys", "create", "--tenant", "acme", "--db", db]);
    server = await startServe([
      "--host",
      "0.0.0.0",
      "--db",
      db,
      "--skip-sample",
    ]);
    expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const port = new URL(server.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });

  it("loads the sample into an empty database, says so, and answers / without a studio", async () => {
    const db = path("empty.db");
    server = await startServe(["--db", db]);
    expect(server.output().stdout).toMatch(
      /loaded the sample conversation "Planning the Tidepool 2\.0 launch"/,
    );
    expect(server.output().stdout).toContain("auth off");
    const { sessions } = (await (
      await fetch(`${server.url}/v1/sessions`)
    ).json()) as {
      sessions: Array<{ name: string; messageCount: number }>;
    };
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.messageCount).toBeGreaterThan(10);
    const home = await fetch(`${server.url}/`);
    expect(home.headers.get("content-type")).toContain("text/html");
    const page = await home.text();
    if (existsSync(STUDIO_INDEX)) {
      expect(page).toBe(readFileSync(STUDIO_INDEX, "utf8"));
    } else {
      expect(page).toContain('<a href="/openapi.json">');
      expect(page).toContain('<a href="/health">');
    }
    expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);
    expect(await server.stop()).toBe(0);

    // A second start finds sessions and loads nothing.
    server = await startServe(["--db", db]);
    expect(server.output().stdout).not.toContain("sample");
  });

  it("stops on SIGINT with exit code 0", async () => {
    server = await startServe(["--db", path("sigint.db"), "--skip-sample"]);
    expect(await server.stop("SIGINT")).toBe(0);
    expect(server.output().stderr).toContain("SIGINT: shutting down");
    server = undefined;
  });

  it("on SIGTERM under load, finishes what it accepted, refuses the rest (503 SHUTTING_DOWN or a refused connection, never a reset), and loses no acknowledged write", async () => {
    const db = path("sigterm-load.db");
    // The server closes no idle connection on its own here (a minute without requests, longer
    // than any stall of a loaded machine): every connection ends after an answer that says
    // `Connection: close`, or by its client, so the outcome depends on no timing. The unit tests
    // (graceful-shutdown.test.ts) cover the close of idle connections.
    server = await startServe([
      "--db",
      db,
      "--skip-sample",
      "--shutdown-idle",
      "60000",
      "--shutdown-grace",
      "60000",
    ]);
    const base = server.url;
    const created = await postJson(base, "/v1/sessions", {
      name: "Under load",
    });
    const { id } = JSON.parse(created.body) as { id: string };
    const acknowledged: string[] = [];
    const outcomes = new Set<string>();
    const resets: string[] = [];
    let signalled = false;
    let sent = 0;
    // Keep-alive clients writing without pause, each on a connection of its own.
    const writer = async (lane: number) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let turn = 0; ; turn++) {
          const messageId = `w${lane}-${turn}`;
          const after = signalled;
          try {
            const answer = await postJson(
              base,
              `/v1/sessions/${id}/messages`,
              {
                message: {
                  id: messageId,
                  role: "user",
                  parts: [{ type: "text", text: "x" }],
                },
                parentId: null,
              },
              agent,
            );
            sent++;
            if (answer.status === 201) acknowledged.push(messageId);
            outcomes.add(String(answer.status));
          } catch (error) {
            if (!(after || signalled))
              throw new Error(`[test] ${messageId} failed before the signal`);
            // Refused once the server stops accepting: the end of this client. A reset instead
            // would leave it unable to tell whether its POST was processed.
            const code = String((error as NodeJS.ErrnoException).code);
            if (code !== "ECONNREFUSED") resets.push(`${messageId}: ${code}`);
            return;
          }
        }
      } finally {
        agent.destroy();
      }
    };
    const writers = Array.from({ length: 8 }, (_, lane) => writer(lane));
    while (sent < 40) await new Promise((resolve) => setTimeout(resolve, 10));
    signalled = true;
    const stopped = server.stop("SIGTERM");
    server = undefined;
    await Promise.all(writers);
    expect(await stopped).toBe(0);
    // Every answer was a success or a typed refusal; never a 500, never a reset.
    expect(resets).toEqual([]);
    expect(
      [...outcomes].filter((status) => !["201", "503"].includes(status)),
    ).toEqual([]);
    const { openSqlite } = await import("../../src/sqlite/index.js");
    const database = openSqlite(db);
    try {
      const stored = new Set(
        database.sql<{
          id: string;
        }>`SELECT id FROM assistant_messages WHERE session_id = ${id}`.map(
          (row) => row.id,
        ),
      );
      expect(
        acknowledged.filter((messageId) => !stored.has(messageId)),
      ).toEqual([]);
    } finally {
      database.close();
    }
  });

  it("names a port in use", async () => {
    server = await startServe(["--db", path("busy.db"), "--skip-sample"]);
    const port = new URL(server.url).port;
    const second = await runCli([
      "serve",
      "--port",
      port,
      "--db",
      path("busy.db"),
    ]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `arbor: PORT_IN_USE: Port ${port} on 127.0.0.1 is in use`,
    );
  });
});
