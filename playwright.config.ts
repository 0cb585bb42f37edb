import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { chromiumLaunchOptions } from "./e2e/support/browser";

// The app under test: `npm start` on a fresh embedded database of its own. Set once in the
// runner process; workers inherit it.
process.env.E2E_PORT ??= "3217";
process.env.E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "burrow-e2e-"));
const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`;

/** Timing- and memory-sensitive specs: see the "alone" project below. */
const ALONE = ["big-batch.spec.ts", "body-limits.spec.ts", "ingestion-fault.spec.ts", "restart.spec.ts"].map((file) => `**/${file}`);

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/e2e",
  // Two spec files at a time (tests within a file stay in order, in one worker): on a 2-core
  // machine much of a spec's time is spent waiting for the servers it starts, the admin CLI
  // and Chromium. Specs share only the webServer instance and its owner (made by the global
  // setup); anything that ends or changes a user's sessions uses a user of its own
  // (support/accounts.ts). E2E_WORKERS=1 runs everything one file at a time again.
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  globalSetup: "./e2e/support/global-setup.ts",
  projects: [
    { name: "parallel", testIgnore: ALONE, teardown: "alone" },
    // Specs that measure how fast the server (or the test itself) reacts — /_health within a
    // second during a 100,000-event batch or a body bomb, 20 restarts right after kill -9,
    // a kill mid-stream — or the shared server's memory: they run after the others, one at a
    // time, with nothing else on the machine, as all specs did before. A teardown project runs
    // after its setup project whatever the outcome, unlike a dependent one. It also runs when
    // only some files of "parallel" are chosen: add --no-deps to run just those files.
    { name: "alone", testMatch: ALONE, workers: 1 },
  ],
  // CI machines differ up to threefold in speed between runs (a whole run took 25 to 70 min):
  // the bounds catch a hang, not a slow machine. Specs that measure time assert it themselves.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "test-results/e2e.json" }]],
  use: {
    baseURL,
    screenshot: "only-on-failure",
    // Recording a trace (a screencast and snapshots of every action) took a third of the
    // specs' time whether or not it was kept (3 specs: 145-154 s with it, 99 s without), and
    // CI keeps only the output: E2E_TRACE=1 records one, kept for a failed test.
    trace: process.env.E2E_TRACE ? "retain-on-failure" : "off",
    launchOptions: chromiumLaunchOptions,
    // The app honours reduced motion (no pulsing skeletons or pinging dots): one animated
    // element kept the headless shell at 10 % of a core for as long as it was on screen.
    reducedMotion: "reduce",
  },
  webServer: {
    command: "node scripts/start.mjs",
    url: `${baseURL}/_ready`,
    timeout: 400_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    // The shared owner is signed in by specs in two workers at once, and REST and tRPC now share
    // one bucket per user: lifted so that the specs' own pace cannot trip it (rate-limit.int.test.ts tests the limit).
    env: { PORT: process.env.E2E_PORT, DATA_DIR: process.env.E2E_DATA_DIR, HOSTNAME: "127.0.0.1", SITE_URL: baseURL, BURROW_API_RATE_LIMIT_PER_MINUTE: "100000" },
  },
});
