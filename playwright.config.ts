import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// The app under test: `npm start` on a fresh embedded database of its own. Set once in the
// runner process; workers inherit it.
process.env.E2E_PORT ??= "3217";
process.env.E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "burrow-e2e-"));
const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`;

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/e2e",
  fullyParallel: false,
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "test-results/e2e.json" }]],
  use: {
    baseURL,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: {
    command: "node scripts/start.mjs",
    url: `${baseURL}/_ready`,
    timeout: 400_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    env: { PORT: process.env.E2E_PORT, DATA_DIR: process.env.E2E_DATA_DIR, HOSTNAME: "127.0.0.1", SITE_URL: baseURL },
  },
});
