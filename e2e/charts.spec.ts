/**
 * The trends displays as an analyst sees them: sixteen days of page views and sign-ups (with
 * browsers and countries) sent through /batch/, one saved insight per display on one
 * dashboard, opened at 1280×800 and 390×844. Each tile must show real content — a line
 * chart's legend totals and a tooltip listing both series at the hovered day, an area's
 * fill, stacked bars, the number's change against the previous period and its sparkline, a
 * sortable table, a pie's shares, the world map's countries coloured by value — and each
 * tile is saved as a screenshot. Expected figures are counted from the events sent.
 */
import { expect, test, type Locator, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@charts.test", password: "owner-password-123" };
const DAY = 86_400_000;

/** Page views per day, today first: the chart's 8 days (-7d), then the 8 days before them. */
const PAGEVIEWS = [3, 1, 0, 4, 2, 0, 5, 1, /* previous period */ 1, 0, 2, 1, 0, 1, 2, 1];
/** Sign-ups per day, today first (all in the chart's range). */
const SIGNUPS = [1, 0, 0, 2, 0, 0, 1, 0];
const BROWSERS = ["Chrome", "Firefox", "Safari"];
/** The chart's page views by country, in the order they are sent. */
const COUNTRIES = [...Array<string>(9).fill("US"), ...Array<string>(5).fill("DE"), ...Array<string>(2).fill("BR")];

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
const CURRENT_PAGEVIEWS = sum(PAGEVIEWS.slice(0, 8));
const PREVIOUS_PAGEVIEWS = sum(PAGEVIEWS.slice(8));

const series = (event: string) => ({ kind: "EventsNode", event, name: event, math: "total" });
const trends = (display: string, extra: Record<string, unknown> = {}) => ({
  kind: "InsightVizNode",
  source: { kind: "TrendsQuery", series: [series("$pageview")], interval: "day", dateRange: { date_from: "-7d" }, trendsFilter: { display }, ...extra },
});

const INSIGHTS: { name: string; query: Record<string, unknown> }[] = [
  { name: "Line: views and sign-ups", query: trends("ActionsLineGraph", { series: [series("$pageview"), series("sign up")] }) },
  { name: "Area: views", query: trends("ActionsAreaGraph") },
  { name: "Bars: views by browser", query: trends("ActionsBar", { breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } }) },
  { name: "Number: views", query: trends("BoldNumber", { compareFilter: { compare: true } }) },
  { name: "Table: views and sign-ups", query: trends("ActionsTable", { series: [series("$pageview"), series("sign up")] }) },
  { name: "Pie: views by browser", query: trends("ActionsPie", { breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } }) },
  { name: "Map: views by country", query: trends("WorldMap") },
];

/** The other kinds, over the same events, drawn beside the trends displays. */
const range = { date_from: "-7d" };
const pageviewEntity = { id: "$pageview", type: "events" };
const OTHER_KINDS: { name: string; query: Record<string, unknown> }[] = [
  { name: "Funnel: view to sign-up", query: { kind: "InsightVizNode", source: { kind: "FunnelsQuery", series: [series("$pageview"), series("sign up")], dateRange: range } } },
  {
    name: "Retention: views",
    query: { kind: "InsightVizNode", source: { kind: "RetentionQuery", dateRange: range, retentionFilter: { targetEntity: pageviewEntity, returningEntity: pageviewEntity, period: "Day", totalIntervals: 8 } } },
  },
  { name: "Lifecycle: views", query: { kind: "InsightVizNode", source: { kind: "LifecycleQuery", series: [series("$pageview")], dateRange: range, interval: "day" } } },
  { name: "Stickiness: views", query: { kind: "InsightVizNode", source: { kind: "StickinessQuery", series: [series("$pageview")], dateRange: range, interval: "day" } } },
  { name: "Empty: never sent", query: trends("ActionsLineGraph", { series: [series("never sent")] }) },
  { name: "Paths: pages", query: { kind: "InsightVizNode", source: { kind: "PathsQuery", dateRange: range, pathsFilter: { includeEventTypes: ["$pageview"] } } } },
];
const PAGES = ["/", "/pricing", "/docs", "/signup"];

test.describe("charts", () => {
  const site = useBootstrappedSite(OWNER);

  async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${site.url}/api/projects/${site.projectId}/${path}`, {
      method,
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  /** The tile titled `name`, once it has drawn its result. */
  async function readyTile(page: Page, name: string): Promise<Locator> {
    const tile = page.getByTestId("insight-tile").filter({ has: page.getByTestId("tile-title").getByText(name, { exact: true }) });
    await expect(tile.getByTestId("tile-body")).toHaveAttribute("data-state", "ready", { timeout: 60_000 });
    return tile;
  }

  async function tileShot(tile: Locator, name: string) {
    await tile.scrollIntoViewIfNeeded();
    await tile.screenshot({ path: test.info().outputPath(`${name}.png`) });
  }

  test("each display draws real content on desktop and phone", async ({ page }) => {
    test.setTimeout(300_000);
    // Each day's events at noon, today's a minute ago (never in the future).
    const now = Date.now();
    const startOfToday = Math.floor(now / DAY) * DAY;
    const at = (daysAgo: number, index: number) =>
      new Date(daysAgo === 0 ? Math.max(startOfToday + 1000, now - 60_000 - index * 1000) : startOfToday - daysAgo * DAY + 12 * 3600_000 + index * 1000).toISOString();
    const batch: Record<string, unknown>[] = [];
    let sent = 0;
    PAGEVIEWS.forEach((count, daysAgo) => {
      for (let index = 0; index < count; index++) {
        const current = daysAgo < 8;
        batch.push({
          event: "$pageview",
          // Two page views a person a day, so that there are paths to draw.
          distinct_id: `user-${Math.floor(index / 2) + 1}`,
          timestamp: at(daysAgo, index),
          properties: { $browser: BROWSERS[sent % BROWSERS.length], $geoip_country_code: current ? COUNTRIES[sent] : "FR", $current_url: `https://shop.example${PAGES[sent % PAGES.length]}` },
        });
        sent++;
      }
    });
    SIGNUPS.forEach((count, daysAgo) => {
      for (let index = 0; index < count; index++) batch.push({ event: "sign up", distinct_id: `user-${index + 1}`, timestamp: at(daysAgo, 100 + index), properties: {} });
    });
    const captured = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(await captured.text()).toBe('{"status":1}');
    const browserTotals = new Map<string, number>();
    batch.filter((event) => event.event === "$pageview" && String(event.timestamp) >= new Date(startOfToday - 7 * DAY).toISOString()).forEach((event) => {
      const browser = String((event.properties as Record<string, unknown>).$browser);
      browserTotals.set(browser, (browserTotals.get(browser) ?? 0) + 1);
    });

    const dashboard = await rest("POST", "dashboards/", { name: "Charts" });
    expect(dashboard.status, JSON.stringify(dashboard.json)).toBe(201);
    for (const insight of [...INSIGHTS, ...OTHER_KINDS]) {
      const created = await rest("POST", "insights/", { ...insight, dashboards: [dashboard.json.id] });
      expect(created.status, `${insight.name}: ${JSON.stringify(created.json)}`).toBe(201);
    }

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/dashboards/${String(dashboard.json.id)}`);
    await expect(page.getByTestId("insight-tile")).toHaveCount(INSIGHTS.length + OTHER_KINDS.length);

    for (const viewport of [
      { width: 1280, height: 800, tag: "desktop" },
      { width: 390, height: 844, tag: "phone" },
    ]) {
      await page.setViewportSize(viewport);
      await page.reload();

      // Line: both series in the legend with their totals; the tooltip at today lists both.
      const line = await readyTile(page, "Line: views and sign-ups");
      const legend = line.getByTestId("legend-item");
      await expect(legend).toHaveCount(2);
      await expect(legend.nth(0)).toContainText("$pageview");
      await expect(legend.nth(0).getByTestId("legend-total")).toHaveText(String(CURRENT_PAGEVIEWS));
      await expect(legend.nth(1)).toContainText("sign up");
      await expect(legend.nth(1).getByTestId("legend-total")).toHaveText(String(sum(SIGNUPS)));
      // Short day ticks ("Nov 3"), not PostHog's "3-Nov-2026" labels.
      const ticks = await line.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value").allTextContents();
      expect(ticks.length).toBeGreaterThan(1);
      for (const tick of ticks) expect(tick).toMatch(/^[A-Z][a-z]{2} \d{1,2}$/);
      // Points on the sparse series are drawn.
      expect(await line.locator(".recharts-line-dots circle").count()).toBeGreaterThanOrEqual(8);
      await line.scrollIntoViewIfNeeded();
      const plot = (await line.locator(".recharts-cartesian-grid").boundingBox())!;
      await page.mouse.move(plot.x + plot.width - 2, plot.y + plot.height / 2);
      const tooltip = line.getByTestId("chart-tooltip");
      await expect(tooltip).toBeVisible();
      const today = new Date(now).toLocaleDateString("en-US", { weekday: "short", month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });
      await expect(tooltip).toContainText(today);
      const rows = tooltip.getByTestId("chart-tooltip-row");
      await expect(rows).toHaveCount(2);
      await expect(rows.filter({ hasText: "$pageview" })).toContainText(String(PAGEVIEWS[0]));
      await expect(rows.filter({ hasText: "sign up" })).toContainText(String(SIGNUPS[0]));
      await tileShot(line, `${viewport.tag}-line-tooltip`);
      await page.mouse.move(0, 0);
      // From the keyboard: the last day's first series, then its persons.
      await line.getByTestId("chart-points").focus();
      await page.keyboard.press("End");
      await expect(line.getByTestId("chart-point")).toHaveText(`${today} · $pageview: ${PAGEVIEWS[0]} · Enter for persons`);
      await page.keyboard.press("Enter");
      const persons = page.locator('dialog[open][data-testid="persons-dialog"]');
      await expect(persons).toBeVisible();
      await expect(persons.getByTestId("persons-link")).toHaveCount(2, { timeout: 30_000 });
      await page.keyboard.press("Escape");
      await expect(persons).toBeHidden();
      // A legend entry hides its series and shows it again, by keyboard too.
      const signUps = legend.nth(1).getByRole("button");
      await signUps.focus();
      await page.keyboard.press("Enter");
      await expect(signUps).toHaveAttribute("aria-pressed", "false");
      await expect(line.locator(".recharts-line")).toHaveCount(1);
      await page.keyboard.press("Enter");
      await expect(signUps).toHaveAttribute("aria-pressed", "true");
      await expect(line.locator(".recharts-line")).toHaveCount(2);

      // Area: filled under the line, legend with the total.
      const area = await readyTile(page, "Area: views");
      await expect(area.locator(".recharts-area-area")).toHaveCount(1);
      expect(await area.locator(".recharts-area-area").getAttribute("fill")).toMatch(/^url\(#area-fill-/);
      await expect(area.getByTestId("legend-total")).toHaveText(String(CURRENT_PAGEVIEWS));
      await tileShot(area, `${viewport.tag}-area`);

      // Bars: one stacked bar series per browser, each browser's total in the legend.
      const bars = await readyTile(page, "Bars: views by browser");
      await expect(bars.getByTestId("legend-item")).toHaveCount(browserTotals.size);
      for (const [browser, total] of browserTotals) await expect(bars.getByTestId("legend-item").filter({ hasText: browser }).getByTestId("legend-total")).toHaveText(String(total));
      await tileShot(bars, `${viewport.tag}-bars`);

      // Number: the range's total, up 100% on the previous period, and the sparkline.
      const number = await readyTile(page, "Number: views");
      await expect(number.getByTestId("bold-number")).toHaveText(String(CURRENT_PAGEVIEWS));
      const expectedChange = `↑ ${Math.round(((CURRENT_PAGEVIEWS - PREVIOUS_PAGEVIEWS) / PREVIOUS_PAGEVIEWS) * 100)}%`;
      await expect(number.getByTestId("number-change-value")).toHaveText(expectedChange);
      await expect(number.getByTestId("number-change")).toContainText(`vs previous period (${PREVIOUS_PAGEVIEWS})`);
      await expect(number.getByTestId("number-sparkline")).toBeVisible();
      // One value per day of the range, today's last.
      expect(await number.getByTestId("number-sparkline").getAttribute("aria-label")).toMatch(new RegExp(`: ${PAGEVIEWS.slice(0, 8).reverse().join(", ")}$`));
      await tileShot(number, `${viewport.tag}-number`);

      // Table: series by total, largest first; sorted by name on request.
      const table = await readyTile(page, "Table: views and sign-ups");
      const tableRows = table.getByTestId("trends-table-row");
      await expect(tableRows).toHaveCount(2);
      await expect(tableRows.nth(0)).toContainText("$pageview");
      await expect(tableRows.nth(0).getByTestId("trends-table-total")).toHaveText(String(CURRENT_PAGEVIEWS));
      await table.getByTestId("sort-total").click();
      await expect(tableRows.nth(0)).toContainText("sign up");
      await expect(table.locator('th[aria-sort="ascending"]')).toHaveCount(1);
      await tileShot(table, `${viewport.tag}-table`);

      // Pie: each browser's total and share.
      const pie = await readyTile(page, "Pie: views by browser");
      await expect(pie.locator(".recharts-pie-sector")).toHaveCount(browserTotals.size);
      for (const [browser, total] of browserTotals) {
        const item = pie.getByTestId("legend-item").filter({ hasText: browser });
        await expect(item.getByTestId("legend-total")).toHaveText(String(total));
        await expect(item.getByTestId("legend-share")).toHaveText(`${Math.round((total / CURRENT_PAGEVIEWS) * 1000) / 10}%`);
      }
      await tileShot(pie, `${viewport.tag}-pie`);

      // World map: the United States darkest, Germany lighter, France (only in the previous period) grey.
      const map = await readyTile(page, "Map: views by country");
      const us = map.locator('[data-testid="map-country"][data-code="US"]');
      await expect(us).toHaveCount(1);
      await expect(us.locator("title")).toHaveText("United States: 9");
      const fills = Object.fromEntries(
        await Promise.all(["US", "DE", "BR", "FR"].map(async (code) => [code, await map.locator(`[data-testid="map-country"][data-code="${code}"]`).getAttribute("fill")] as const)),
      );
      expect(new Set(Object.values(fills)).size).toBe(4);
      expect(fills.FR).toBe("#e5e7eb");
      await expect(map.getByTestId("map-country-row").first()).toContainText("United States");
      await us.hover({ force: true });
      await expect(map.getByTestId("map-hover")).toHaveText("United States: 9");
      await tileShot(map, `${viewport.tag}-map`);

      // A series with no events says so instead of drawing a flat line.
      const empty = page.getByTestId("insight-tile").filter({ has: page.getByTestId("tile-title").getByText("Empty: never sent", { exact: true }) });
      await expect(empty.getByTestId("tile-body")).toHaveAttribute("data-state", "empty", { timeout: 60_000 });
      await expect(empty.getByTestId("tile-body")).toContainText("No events in this range");

      // The other kinds: drawn (not the error state), each with its own content.
      const funnel = await readyTile(page, "Funnel: view to sign-up");
      await expect(funnel.getByTestId("funnel-step")).toHaveCount(2);
      await tileShot(funnel, `${viewport.tag}-funnel`);
      const retention = await readyTile(page, "Retention: views");
      await expect(retention.getByTestId("retention-row").first()).toBeVisible();
      await tileShot(retention, `${viewport.tag}-retention`);
      const lifecycle = await readyTile(page, "Lifecycle: views");
      await expect(lifecycle.locator(".recharts-bar-rectangle").first()).toBeVisible();
      await tileShot(lifecycle, `${viewport.tag}-lifecycle`);
      const stickiness = await readyTile(page, "Stickiness: views");
      await expect(stickiness.locator(".recharts-bar-rectangle").first()).toBeVisible();
      await tileShot(stickiness, `${viewport.tag}-stickiness`);
      const paths = await readyTile(page, "Paths: pages");
      expect(await paths.getByTestId("paths-node").count()).toBeGreaterThan(1);
      await tileShot(paths, `${viewport.tag}-paths`);

      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, `${viewport.tag}-dashboard`);
    }
  });
});
