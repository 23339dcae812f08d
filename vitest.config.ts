import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Shared suites are run by the backend runners, never on their own.
    exclude: ["**/node_modules/**", "dist/**", "src/testing/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Expected warnings (fallbacks, failing fake summarizers) stay out of green runs.
    silent: "passed-only",
  },
});
