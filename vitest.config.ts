import path from "node:path";
import { defineConfig } from "vitest/config";

// BURROW_TEST_DB=pglite (default) runs every test with integration tests on the embedded
// database; BURROW_TEST_DB=postgres runs only the integration tests (*.int.test.ts), on a
// throwaway database of the PostgreSQL server. scripts/test.mjs runs both.
const onPostgres = process.env.BURROW_TEST_DB === "postgres";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "src") } },
  test: {
    include: onPostgres ? ["src/**/*.int.test.ts"] : ["src/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
