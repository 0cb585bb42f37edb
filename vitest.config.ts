import path from "node:path";
import { defineConfig } from "vitest/config";

// BURROW_TEST_DB=pglite (default) runs every test with integration tests on the embedded
// database; BURROW_TEST_DB=postgres runs only the integration tests (*.int.test.ts), on a
// throwaway database of the PostgreSQL server. BURROW_TEST_EVENTS=clickhouse runs the event
// store's contract suite (the integration tests of every domain that reads events: the include below) with the events in
// ClickHouse (chdb in the test process, or CLICKHOUSE_URL's server). scripts/test.mjs runs all three.
const onPostgres = process.env.BURROW_TEST_DB === "postgres";
const onClickHouse = process.env.BURROW_TEST_EVENTS === "clickhouse";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname, "src") } },
  test: {
    include: onClickHouse
      ? [
          "src/server/events/**/*.int.test.ts",
          "src/server/db/events/**/*.int.test.ts",
          "src/server/insights/**/*.int.test.ts",
          "src/server/cohorts/**/*.int.test.ts",
          "src/server/persons/**/*.int.test.ts",
          "src/server/trends/**/*.int.test.ts",
          "src/server/query/**/*.int.test.ts",
          "src/server/funnels/**/*.int.test.ts",
          "src/server/retention/**/*.int.test.ts",
          "src/server/stickiness/**/*.int.test.ts",
          "src/server/lifecycle/**/*.int.test.ts",
          "src/server/paths/**/*.int.test.ts",
          "src/server/definitions/**/*.int.test.ts",
          "src/server/web-analytics/**/*.int.test.ts",
          "src/server/live-visitors/**/*.int.test.ts",
          "src/server/actions/**/*.int.test.ts",
          "src/server/experiments/results.int.test.ts",
          "src/server/surveys/results.int.test.ts",
          "src/server/destinations/**/*.int.test.ts",
          "src/server/install/**/*.int.test.ts",
          // Recordings stay in PostgreSQL/PGlite; their "events performed" filter and deletion with a person read the event store.
          "src/server/recordings/**/*.int.test.ts",
          // Batch exports' models: persons (in PostgreSQL) and the sessions model's refusal on ClickHouse;
          // the events' person columns (persons read from PostgreSQL for events in ClickHouse).
          "src/server/batch-exports/models.int.test.ts",
          "src/server/batch-exports/events.int.test.ts",
        ]
      : onPostgres
        ? ["src/**/*.int.test.ts"]
        : ["src/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two test files at a time (vitest's default is one fewer than the cores: one here). Most
    // files wait on a database; measured on 2 cores: PGlite 213 s instead of about 330 s,
    // PostgreSQL 127 s, ClickHouse 106 s instead of about 175 s.
    maxWorkers: 2,
    // Files run one after another in each worker's process without a fresh module graph:
    // importing the server's modules again for every file took a quarter of the PGlite pass
    // and half of the PostgreSQL one (340 → 250 s and 218 → 107 s on 2 quiet cores). State
    // that must not outlive a file is keyed by its database (caches hold a WeakMap per
    // Database), and the environment is put back after each file (file-env.ts).
    isolate: false,
    setupFiles: ["src/test-support/file-env.ts"],
    // Test databases start from a migrated database made once per run: dumps on the embedded
    // database, a template database on PostgreSQL.
    globalSetup: onPostgres ? ["src/test-support/postgres-template.ts"] : ["src/server/db/pglite-templates.ts"],
  },
});
