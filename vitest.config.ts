import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Shared suites are run by the backend runners, never on their own.
    exclude: ["**/node_modules/**", "dist/**", "src/testing/**"],
    // Generous: a test that runs subprocesses (the CLI, workerd, a server) may take several times
    // its quiet time on a loaded two-core machine, and a bound is for a hang, not for speed.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Expected warnings (fallbacks, failing fake summarizers) stay out of green runs.
    silent: "passed-only",
  },
});
