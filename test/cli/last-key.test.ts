// Revoking the last API key must never silently serve tenants' sessions to requests without a
// key: revoke asks for --yes, and serve refuses to start without keys while sessions have
// owners unless given --no-auth. In-process except the one start that listens.
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  startServe,
  temporaryFolder,
  type ServeProcess,
} from "./support/cli.js";
import { runCliInProcess as arbor } from "./support/in-process.js";
import { seedBranchedDatabase } from "./support/seed.js";

describe("the last API key", () => {
  const folder = temporaryFolder();
  let db: string;
  let round = 0;
  let server: ServeProcess | undefined;
  beforeEach(async () => {
    db = join(folder.path, `owned-${++round}.db`);
    await seedBranchedDatabase(db);
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });
  afterAll(() => folder.remove());

  const createKey = async (tenant: string) => {
    const run = await arbor([
      "keys",
      "create",
      "--tenant",
      tenant,
      "--json",
      "--db",
      db,
    ]);
    expect(run.code).toBe(0);
    return (JSON.parse(run.stdout) as { record: { id: string } }).record.id;
  };
  const keyIds = async () =>
    (
      JSON.parse(
        (await arbor(["keys", "list", "--json", "--db", db])).stdout,
      ) as {
        keys: Array<{ id: string }>;
      }
    ).keys.map((key) => key.id);

  it("keys revoke of the last key says what it does and needs --yes", async () => {
    const id = await createKey("acme");
    const refused = await arbor(["keys", "revoke", id, "--db", db]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(
      `arbor: CONFIRMATION_REQUIRED: ${id} is the last API key`,
    );
    // The seed has two sessions, both owned.
    expect(refused.stderr).toContain("2 sessions have owners");
    expect(refused.stderr).toContain("--no-auth");
    expect(refused.stderr).toContain(`arbor keys revoke ${id} --yes`);
    expect(await keyIds()).toEqual([id]);

    const revoked = await arbor(["keys", "revoke", id, "--yes", "--db", db]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`Revoked ${id}.\n`);
    expect(revoked.stderr).toContain("No API keys are left");
    expect(await keyIds()).toEqual([]);
  });

  it("keys revoke of a key that is not the last needs no --yes", async () => {
    const first = await createKey("acme");
    const second = await createKey("someone-else");
    const run = await arbor(["keys", "revoke", first, "--db", db]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(await keyIds()).toEqual([second]);
  });

  it("serve without keys refuses to start while sessions have owners", async () => {
    const run = await arbor(["serve", "--port", "0", "--db", db]);
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain("listening");
    expect(run.stderr).toMatch(
      /^arbor: AUTH_REQUIRED: Refusing to start without an API key: sessions in this store have owners/,
    );
    expect(run.stderr).toContain("arbor keys create --tenant <name>");
    expect(run.stderr).toContain("--no-auth");
  });

  it("--no-auth with keys present is a usage error: auth cannot be turned off by a flag", async () => {
    await createKey("acme");
    const run = await arbor(["serve", "--port", "0", "--no-auth", "--db", db]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("this store has keys");
  });

  it("serve --no-auth starts, says so, and serves the owned sessions without a key", async () => {
    server = await startServe(["--no-auth", "--db", db]);
    expect(server.output().stdout).toContain(
      "auth off (--no-auth: every request sees every session)",
    );
    const { sessions } = (await (
      await fetch(`${server.url}/v1/sessions`)
    ).json()) as { sessions: unknown[] };
    expect(sessions).toHaveLength(2);
  });
});
