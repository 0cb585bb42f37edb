// `npm test`: unit and integration tests on the embedded database, integration tests again
// on PostgreSQL, the event store's contract tests with the events in ClickHouse, then the browser and server end-to-end tests against `npm start`.
// Ends with one plain "N passed, N failed" line.
import { spawnSync } from "node:child_process";
import fs from "node:fs";

const RESULTS = "test-results";
fs.mkdirSync(RESULTS, { recursive: true });

const passes = [
  {
    title: "type check (tsc: app, tests, e2e, benchmarks)",
    command: ["npx", "--no-install", "tsc", "--noEmit", "-p", "tsconfig.json"],
    env: {},
    report: null,
    count: null,
  },
  {
    title: "unit and integration tests on the embedded database (PGlite)",
    command: ["npx", "--no-install", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${RESULTS}/vitest-pglite.json`],
    env: { BURROW_TEST_DB: "pglite" },
    report: `${RESULTS}/vitest-pglite.json`,
    count: (r) => ({ passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + r.numTodoTests }),
    failures: vitestFailures,
  },
  {
    title: "integration tests on PostgreSQL",
    command: ["npx", "--no-install", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${RESULTS}/vitest-postgres.json`],
    env: { BURROW_TEST_DB: "postgres" },
    report: `${RESULTS}/vitest-postgres.json`,
    count: (r) => ({ passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + r.numTodoTests }),
    failures: vitestFailures,
  },
  {
    title: "event store contract on ClickHouse (chdb; CLICKHOUSE_URL's server when set)",
    command: ["npx", "--no-install", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile=${RESULTS}/vitest-clickhouse.json`],
    env: { BURROW_TEST_DB: "pglite", BURROW_TEST_EVENTS: "clickhouse" },
    report: `${RESULTS}/vitest-clickhouse.json`,
    count: (r) => ({ passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + r.numTodoTests }),
    failures: vitestFailures,
  },
  {
    title: "end-to-end tests (real server, Chromium)",
    command: ["npx", "--no-install", "playwright", "test"],
    env: {},
    report: `${RESULTS}/e2e.json`,
    count: (r) => ({ passed: r.stats.expected + r.stats.flaky, failed: r.stats.unexpected, skipped: r.stats.skipped }),
    failures: playwrightFailures,
  },
];

// CI keeps only the tail of this output, so the names of what failed are repeated at the end.
function vitestFailures(report) {
  return report.testResults.flatMap((file) =>
    file.assertionResults
      .filter((test) => test.status === "failed")
      .map((test) => `${file.name.replace(`${process.cwd()}/`, "")} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`)
      .concat(file.status === "failed" && file.assertionResults.length === 0 ? [`${file.name}: ${firstLine(file.message)}`] : []),
  );
}

function playwrightFailures(report) {
  const failed = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      if (!spec.ok) failed.push(`${spec.file}:${spec.line} › ${spec.title}: ${firstLine(spec.tests?.[0]?.results?.at(-1)?.error?.message)}`);
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites ?? []) walk(suite);
  return failed;
}

function firstLine(text) {
  return (text ?? "").replace(/\u001b\[[0-9;]*m/g, "").split("\n").find((line) => line.trim() !== "")?.slice(0, 300) ?? "";
}

const only = process.argv[2];
const totals = { passed: 0, failed: 0, skipped: 0 };
const failedNames = [];
let broken = false;
for (const pass of passes) {
  if (only && !pass.title.includes(only)) continue;
  console.log(`\n=== ${pass.title} ===\n`);
  if (pass.report) fs.rmSync(pass.report, { force: true });
  const started = Date.now();
  const run = spawnSync(pass.command[0], pass.command.slice(1), { stdio: "inherit", env: { ...process.env, ...pass.env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (!pass.report) {
    // A check, not a test runner: it adds no tests, only a failure when it fails.
    const ok = run.status === 0;
    console.log(`\n${pass.title}: ${ok ? "clean" : "FAILED"} (${seconds} s)`);
    if (!ok) {
      totals.failed += 1;
      broken = true;
    }
    continue;
  }
  if (!fs.existsSync(pass.report)) {
    console.log(`\n${pass.title}: no report (exit ${run.status}); counted as failed`);
    broken = true;
    totals.failed += 1;
    continue;
  }
  const report = JSON.parse(fs.readFileSync(pass.report, "utf8"));
  const counts = pass.count(report);
  console.log(`\n${pass.title}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped (${seconds} s)`);
  for (const failure of pass.failures(report)) failedNames.push(`[${pass.title}] ${failure}`);
  for (const key of Object.keys(totals)) totals[key] += counts[key];
  if (run.status !== 0) broken = true;
}

if (failedNames.length > 0) console.log(`\nfailed:\n${failedNames.map((name) => `  ${name}`).join("\n")}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(broken || totals.failed > 0 ? 1 : 0);
