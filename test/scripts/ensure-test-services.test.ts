// scripts/ensure-test-services.sh, which npm test runs before vitest: on a machine that has
// pgvector and Chromium it only checks (installing and changing nothing), and it names what it
// could not check. The install paths change the machine, so they are not run here; they list
// every change they make ("changed this machine: ...").
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";

const SCRIPT = "scripts/ensure-test-services.sh";
const PG_URL = process.env.ARBOR_TEST_PG_URL || undefined;

function run(env: Record<string, string | undefined>) {
  return spawnSync("bash", [SCRIPT], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
}

describe("ensure-test-services.sh", () => {
  it.skipIf(!PG_URL || !existsSync("/usr/bin/chromium"))(
    "is a quick no-op when pgvector and Chromium are there, even under CI=true",
    () => {
      const result = run({ ARBOR_TEST_PG_URL: PG_URL, CI: "true" });
      expect(result.status).toBe(0);
      // Only the present services, after a note about an apt source that an earlier version of
      // the script left behind, when the machine has one (the script says it, and changes nothing).
      expect(result.stderr).toMatch(
        /^(\[test services\] note: \/etc\/apt\/sources\.list\.d\/arbor-pgvector-src\.list [^\n]*\n)?\[test services\] present: pgvector Chromium\n$/,
      );
      // Quick because it installs, updates and changes nothing (no wall-clock bound: a loaded
      // machine is slow, and that is not this script's fault).
      expect(result.stderr).not.toContain("install");
      expect(result.stderr).not.toContain("changed this machine");
    },
  );

  it("says what it cannot check: a server that does not answer, or no URL", () => {
    const down = run({
      ARBOR_TEST_PG_URL: "postgres://postgres@127.0.0.1:1/none",
      CI: "",
    });
    expect(down.status).toBe(0);
    expect(down.stderr).toContain(
      "PostgreSQL at ARBOR_TEST_PG_URL does not answer: pgvector not checked",
    );
    const unset = run({ ARBOR_TEST_PG_URL: "", CI: "" });
    expect(unset.status).toBe(0);
    expect(unset.stderr).toContain("ARBOR_TEST_PG_URL is not set");
  });
});
