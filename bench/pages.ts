/**
 * Signed-in pages, warm: how long from navigation to content (issue 34, 8), and how many tRPC
 * requests the page made before its content showed. Bootstraps a fresh embedded instance,
 * sends a few hundred events, signs in in Chromium, opens each page once, then `--runs` more
 * times, each once the last has gone quiet (network idle): p50 and max of the time from
 * `page.goto` until the page's main area has text and no spinner, skeleton or `aria-busy`
 * element is left.
 *
 * Target: every page under 500 ms warm.
 *
 * Each line also says where the median run's time went: the HTML's last byte, the page's
 * scripts run (DOMContentLoaded), and the last tRPC answer's last byte, from the page's own
 * Navigation and Resource Timing.
 *
 *   npm run build && npm run bench:pages [-- --runs 5]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { chromium, type Page } from "@playwright/test";
import { chromiumLaunchOptions } from "../e2e/support/browser";
import { admin } from "../e2e/support/server";
import { startServer, stop } from "./lib/server-process";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" } } });
const RUNS = Number(values.runs);
const TARGET_MS = 500;
const OWNER = { email: "pages@example.com", password: "pages bench password" };
/** `PAGES=/,/web npm run bench:pages` measures only those. */
const PAGES = process.env.PAGES ? process.env.PAGES.split(",") : [
  "/",
  "/web",
  "/dashboards",
  "/insights",
  "/events",
  "/sql",
  "/replay",
  "/persons",
  "/actions",
  "/cohorts",
  "/feature-flags",
  "/experiments",
  "/surveys",
  "/early-access",
  "/pipeline",
  "/destinations",
  "/settings/project",
  "/settings/organization",
];

/** Content is visible: the main area has text, and nothing in it is still loading. */
async function contentVisible(page: Page): Promise<void> {
  // A string, not a function: tsx's name helpers do not exist in the page.
  await page.waitForFunction(
    `(() => {
      const main = document.querySelector("main");
      if (!main || main.innerText.trim().length === 0) return false;
      const loading = main.querySelectorAll('.animate-spin, .animate-pulse, [aria-busy="true"], [data-testid$="-loading"]');
      return ![...loading].some((element) => element.offsetParent !== null && !element.closest("button"));
    })()`,
    undefined,
    { polling: 10, timeout: 30_000 },
  );
}

interface Phases {
  /** The document's last byte, from the navigation's start. */
  html: number;
  /** DOMContentLoaded done: the page's scripts have run (React has hydrated). */
  scripts: number;
  /** The last tRPC answer's last byte, or null when the page asked none. */
  trpc: number | null;
}

/** Where a navigation's time went, from the page's own Navigation and Resource Timing. */
async function phasesOf(page: Page): Promise<Phases> {
  return page.evaluate(`(() => {
    const [navigation] = performance.getEntriesByType("navigation");
    const trpc = performance.getEntriesByType("resource").filter((entry) => entry.name.includes("/api/trpc/"));
    return {
      html: navigation.responseEnd,
      scripts: navigation.domContentLoadedEventEnd,
      trpc: trpc.length ? Math.max(...trpc.map((entry) => entry.responseEnd)) : null,
    };
  })()`) as Promise<Phases>;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-pages-"));
  const boot = admin(["bootstrap", "--email", OWNER.email, "--password", OWNER.password, "--json"], { DATA_DIR: dataDir });
  if (boot.code !== 0) throw new Error(boot.stderr);
  const { project_api_key: projectKey } = JSON.parse(boot.stdout) as { project_api_key: string };
  const server = await startServer({ DATA_DIR: dataDir });
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const now = Date.now();
    const batch = Array.from({ length: 300 }, (_, i) => ({
      event: i % 3 === 0 ? "$autocapture" : "$pageview",
      distinct_id: `visitor-${i % 40}`,
      timestamp: new Date(now - i * 60_000).toISOString(),
      properties: { $current_url: `https://example.com/page-${i % 7}`, $pathname: `/page-${i % 7}`, $host: "example.com", $session_id: `session-${i % 60}` },
    }));
    const sent = await fetch(`${server.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: projectKey, batch }) });
    if (!sent.ok) throw new Error(`batch: ${sent.status}`);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/login`);
    await page.getByTestId("login-email").fill(OWNER.email);
    await page.getByTestId("login-password").fill(OWNER.password);
    await page.getByTestId("login-submit").click();
    await page.getByTestId("home").waitFor();

    let trpcCalls = 0;
    page.on("request", (request) => {
      if (request.url().includes("/api/trpc/")) trpcCalls += 1;
    });
    console.log(`page                      p50 ms   max ms   tRPC before content   where the p50 run's time went: HTML, scripts run, last tRPC answer (ms)   (target < ${TARGET_MS} ms)`);
    for (const pathname of PAGES) {
      await page.goto(`${server.url}${pathname}`);
      await contentVisible(page);
      const times: number[] = [];
      const calls: number[] = [];
      const phases: Phases[] = [];
      for (let run = 0; run < RUNS; run++) {
        // Warm means a quiet server: the last run's page has finished what it asks after its
        // content (the web filters' lists, Home's poll), which would otherwise be timed as this
        // run's wait for the database.
        await page.waitForLoadState("networkidle");
        trpcCalls = 0;
        const started = performance.now();
        await page.goto(`${server.url}${pathname}`, { waitUntil: "commit" });
        await contentVisible(page);
        times.push(performance.now() - started);
        calls.push(trpcCalls);
        phases.push(await phasesOf(page));
      }
      const order = times.map((_, i) => i).sort((a, b) => times[a]! - times[b]!);
      const middle = order[Math.floor(order.length / 2)]!;
      const p50 = times[middle]!;
      const { html, scripts, trpc } = phases[middle]!;
      calls.sort((a, b) => a - b);
      console.log(
        `${pathname.padEnd(24)} ${p50.toFixed(0).padStart(7)}  ${Math.max(...times).toFixed(0).padStart(7)}   ${String(calls[Math.floor(calls.length / 2)]).padStart(3)}                   ${html.toFixed(0).padStart(5)} ${scripts.toFixed(0).padStart(6)} ${trpc === null ? "     -" : trpc.toFixed(0).padStart(6)}${p50 > TARGET_MS ? "   over target" : ""}`,
      );
    }
  } finally {
    await browser.close();
    await stop(server.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
