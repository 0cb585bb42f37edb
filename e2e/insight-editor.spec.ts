/**
 * The insight editor (issue 20) at 1280×800 and 390×844: events sent through /batch/; a
 * funnel built by typing parts of event names and picking suggestions with the keyboard,
 * its chart, saved onto a dashboard whose tile shows it; a tile edited in place (a step
 * changed, saved, the tile changes); a retention matrix and a paths Sankey; back/forward
 * restoring the editor; the kind tabs by keyboard; axe finding nothing serious on the
 * editor with a funnel built; PostHog's two-level filter groups — an OR of groups made
 * through the API shown as groups and saved with only the edited fields changed, and one
 * built in the editor — with their answers checked through the query API.
 */
import AxeBuilder from "@axe-core/playwright";
import LZString from "lz-string";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@editor.test", password: "owner-password-123" };

test.describe("the insight editor", () => {
  test.describe.configure({ mode: "serial" });
  const site = useBootstrappedSite(OWNER);
  let dashboardId = 0;

  async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${site.url}/api/projects/${site.projectId}/${path}`, {
      method,
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  /**
   * Types `partial` into a combobox, waits for the suggestions of that text, moves to `name`
   * with ArrowDown and picks it with Enter.
   */
  async function pickSuggestion(page: Page, input: Locator, partial: string, name: string) {
    await input.click();
    await input.fill("");
    await input.pressSequentially(partial);
    const listbox = page.locator(`[id="${await input.getAttribute("aria-controls")}"]`);
    const texts = listbox.locator('[role="option"] > span:first-child');
    await expect(texts.filter({ hasText: new RegExp(`^${name.replace(/[$^.*+?()[\]{}|\\]/g, "\\$&")}$`) })).toBeVisible();
    // The list has settled on this text's suggestions (it is fetched as one types).
    await expect.poll(async () => (await texts.allInnerTexts()).every((text) => text.toLowerCase().includes(partial.toLowerCase()))).toBe(true);
    const index = (await texts.allInnerTexts()).indexOf(name);
    for (let at = 0; at <= index; at++) await input.press("ArrowDown");
    await expect(listbox.getByRole("option").nth(index)).toHaveAttribute("aria-selected", "true");
    await input.press("Enter");
    await expect(input).toHaveValue(name);
    await expect(listbox).toBeHidden();
  }

  /** Picks `name` as the event of series (or step) `row` by typing `partial`. */
  async function pickEvent(page: Page, row: number, partial: string, name: string) {
    await pickSuggestion(page, page.getByTestId("series-row").nth(row).getByTestId("series-event"), partial, name);
  }

  async function chartReady(page: Page) {
    await expect(page.getByTestId("chart-area")).toHaveAttribute("data-state", "ready", { timeout: 30_000 });
  }

  test.beforeAll(async () => {
    const base = Date.now() - 2 * 3600_000;
    const at = (daysAgo: number, minutes: number) => new Date(base - daysAgo * 86_400_000 + minutes * 60_000).toISOString();
    const pageview = (distinct_id: string, daysAgo: number, minutes: number, path: string) => ({
      event: "$pageview",
      distinct_id,
      timestamp: at(daysAgo, minutes),
      properties: { $current_url: `https://shop.example${path}`, $pathname: path, $browser: "Firefox" },
    });
    const event = (distinct_id: string, name: string, daysAgo: number, minutes: number) => ({ event: name, distinct_id, timestamp: at(daysAgo, minutes), properties: { plan: "pro" } });
    const batch = [
      pageview("ann", 3, 1, "/home"),
      event("ann", "sign up", 3, 2),
      pageview("ann", 3, 3, "/pricing"),
      event("ann", "play movie", 3, 62),
      event("ann", "buy", 3, 180),
      pageview("ann", 2, 5, "/home"),
      pageview("ann", 1, 5, "/home"),
      pageview("ben", 3, 10, "/home"),
      event("ben", "sign up", 3, 11),
      pageview("ben", 3, 12, "/docs"),
      event("ben", "play movie", 3, 131),
      pageview("ben", 1, 20, "/docs"),
      pageview("cy", 2, 30, "/blog"),
      event("cy", "sign up", 2, 31),
      pageview("cy", 2, 32, "/pricing"),
      event("cy", "signal lost", 2, 40),
      pageview("dee", 0, 0, "/home"),
    ];
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(await sent.text()).toBe('{"status":1}');
    const dashboard = await rest("POST", "dashboards/", { name: "Growth" });
    expect(dashboard.status, JSON.stringify(dashboard.json)).toBe(201);
    dashboardId = Number(dashboard.json.id);
  });

  test("build a funnel from suggestions with the keyboard and save it to a dashboard", async ({ page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.getByTestId("nav-insights").click();
    await expect(page).toHaveURL(/\/insights$/);
    await expect(page.getByTestId("insights-list")).toHaveAttribute("data-state", "empty");
    await page.getByTestId("new-insight").click();
    await expect(page).toHaveURL(/\/insights\/new$/);
    await chartReady(page);

    // The kinds are a tablist: arrow keys move and choose.
    await page.getByTestId("kind-tab-trends").focus();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("tab", { name: "Funnels" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByRole("tab", { name: "Funnels" })).toBeFocused();
    await expect(page.getByTestId("kind-panel")).toHaveAttribute("data-kind", "funnels");

    await pickEvent(page, 0, "sig", "sign up");
    await page.getByTestId("add-series").click();
    await pickEvent(page, 1, "mov", "play movie");
    await page.getByTestId("add-series").click();
    await pickEvent(page, 2, "bu", "buy");
    await chartReady(page);
    const steps = page.getByTestId("chart-area").getByTestId("funnel-step");
    await expect(steps).toHaveCount(3);
    await expect(steps.getByTestId("funnel-step-count")).toHaveText(["3", "2", "1"]);
    // The query is in the URL.
    expect(new URL(page.url()).searchParams.get("q")).toBeTruthy();
    await screenshot(page, "01-funnel-built");

    // Accessibility: nothing serious or critical on the editor with a funnel built.
    const axe = await new AxeBuilder({ page }).analyze();
    const serious = axe.violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
    expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)).toEqual([]);

    // A server-side refusal shows inline and clears the chart: an exclusion of a step's own event.
    await page.getByTestId("add-exclusion").click();
    const exclusion = page.getByRole("combobox", { name: "Exclusion 1 event" });
    await exclusion.fill("buy");
    await expect(page.getByTestId("chart-area")).toHaveAttribute("data-state", "error", { timeout: 30_000 });
    await expect(page.getByTestId("query-error")).toContainText("Exclusion steps cannot contain an event");
    await expect(page.getByTestId("chart-area").getByTestId("funnel-step")).toHaveCount(0);
    await page.getByTestId("exclusion-row").getByRole("button", { name: "Remove Exclusion 1" }).click();
    await chartReady(page);

    await page.getByTestId("save-insight").click();
    const dialog = page.getByTestId("save-dialog");
    await expect(dialog).toBeVisible();
    await dialog.getByTestId("insight-name").fill("Signup funnel");
    await dialog.getByTestId("insight-description").fill("Sign up, watch, buy.");
    await dialog.getByTestId("insight-dashboard").selectOption({ label: "Growth" });
    await screenshot(page, "02-save-dialog", { fullPage: false });
    await dialog.getByTestId("save-confirm").click();
    await expect(page).toHaveURL(new RegExp(`/dashboards/${dashboardId}$`));
    const tile = page.getByTestId("insight-tile").filter({ hasText: "Signup funnel" });
    await expect(tile.getByTestId("funnel-step")).toHaveCount(3, { timeout: 30_000 });
    await expect(tile.getByTestId("funnel-step-count")).toHaveText(["3", "2", "1"]);
    await screenshot(page, "03-dashboard-with-funnel");

    // It is listed with its kind.
    await page.goto(`${site.url}/insights`);
    await expect(page.getByTestId("insight-row")).toHaveCount(1);
    await expect(page.getByTestId("insight-kind")).toHaveText("Funnels");
    await page.getByTestId("insights-search").fill("nothing like it");
    await expect(page.getByTestId("insights-list")).toHaveAttribute("data-state", "empty");
    await page.getByTestId("insights-search").fill("signup");
    await expect(page.getByTestId("insight-link")).toHaveText("Signup funnel");
    await screenshot(page, "04-insights-list");
  });

  test("edit a tile in place: change a step, save, the tile changes", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/dashboards/${dashboardId}`);
    const tile = page.getByTestId("insight-tile").filter({ hasText: "Signup funnel" });
    await expect(tile.getByTestId("funnel-step")).toHaveCount(3, { timeout: 30_000 });
    await tile.getByTestId("tile-menu").click();
    await page.getByTestId("tile-edit-insight").click();
    await expect(page).toHaveURL(new RegExp(`/insights/[A-Za-z0-9]+\\?dashboard=${dashboardId}$`));
    await expect(page.getByTestId("insight-title")).toHaveText("Signup funnel");
    await chartReady(page);

    // Step 2 becomes "buy"; step 3 goes.
    await pickEvent(page, 1, "bu", "buy");
    await page.getByRole("button", { name: "Remove Step 3" }).click();
    await chartReady(page);
    await expect(page.getByTestId("chart-area").getByTestId("funnel-step-count")).toHaveText(["3", "1"]);
    await expect(page.getByText("Unsaved changes")).toBeVisible();
    await screenshot(page, "05-tile-in-editor");
    await page.getByTestId("save-insight").click();
    const dialog = page.getByTestId("save-dialog");
    await expect(dialog.getByTestId("insight-name")).toHaveValue("Signup funnel");
    await expect(dialog.getByTestId("insight-dashboard")).toHaveValue(String(dashboardId));
    await dialog.getByTestId("save-confirm").click();
    await expect(page).toHaveURL(new RegExp(`/dashboards/${dashboardId}$`));
    await expect(tile.getByTestId("funnel-step")).toHaveCount(2, { timeout: 30_000 });
    await expect(tile.getByTestId("funnel-step-count")).toHaveText(["3", "1"]);
    await expect(page.getByTestId("insight-tile")).toHaveCount(1);
    await screenshot(page, "06-tile-changed");

    // A query the editor does not build (HogQL) is not opened as a blank trend, where saving would overwrite it: its page sends it to the SQL editor.
    const hogql = await rest("POST", "insights/", { name: "Raw SQL", query: { kind: "DataTableNode", source: { kind: "HogQLQuery", query: "select count() from events" } } });
    expect(hogql.status, JSON.stringify(hogql.json)).toBe(201);
    await page.goto(`${site.url}/insights/${String(hogql.json.short_id)}`);
    await expect(page.getByRole("alert").filter({ hasText: "Raw SQL is a SQL query" })).toBeVisible();
    await expect(page.getByTestId("open-in-sql")).toHaveAttribute("href", `/sql?insight=${String(hogql.json.short_id)}`);
    await expect(page.getByTestId("insight-editor")).toHaveCount(0);
  });

  test("a retention matrix and a paths Sankey; back and forward restore the editor", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights/new`);
    await chartReady(page);

    await page.getByRole("tab", { name: "Retention" }).click();
    await expect(page.getByTestId("retention-section")).toBeVisible();
    await chartReady(page);
    await page.getByTestId("retention-count").fill("4");
    await chartReady(page);
    await expect(page.getByTestId("chart-area").getByTestId("retention-table")).toBeVisible();
    // Four periods: each cohort's row has four cells (Day 0 to Day 3).
    await expect(page.getByTestId("chart-area").getByTestId("retention-row").first().getByTestId("retention-cell")).toHaveCount(4);
    await screenshot(page, "07-retention");
    const retentionUrl = page.url();

    await page.getByRole("tab", { name: "Paths" }).click();
    await chartReady(page);
    await expect(page.getByTestId("chart-area").getByTestId("paths-sankey")).toBeVisible();
    await expect(page.getByTestId("chart-area").getByTestId("paths-node").first()).toBeVisible();
    await screenshot(page, "08-paths");
    // Wait for the URL to take the edit (it is written once the edit settles).
    await expect.poll(() => page.url()).not.toBe(retentionUrl);

    await page.goBack();
    await expect(page.getByRole("tab", { name: "Retention" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("retention-count")).toHaveValue("4");
    await chartReady(page);
    await expect(page.getByTestId("chart-area").getByTestId("retention-row").first().getByTestId("retention-cell")).toHaveCount(4);
    await page.goBack();
    await expect(page.getByRole("tab", { name: "Retention" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId("retention-count")).toHaveValue("7");
    await page.goForward();
    await page.goForward();
    await expect(page.getByRole("tab", { name: "Paths" })).toHaveAttribute("aria-selected", "true");
    await chartReady(page);

    // A link with the query opens the same editor.
    const shared = page.url();
    await page.goto(shared);
    await expect(page.getByRole("tab", { name: "Paths" })).toHaveAttribute("aria-selected", "true");
  });

  test("a trend with a filter, a breakdown and a chart type from the shared condition builder; unfinished queries clear the chart", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights/new`);
    await chartReady(page);

    const pick = (input: Locator, partial: string, name: string) => pickSuggestion(page, input, partial, name);

    // An unfinished filter keeps the query from running and clears the chart.
    await page.getByTestId("filters-section").getByTestId("add-filter").click();
    await expect(page.getByTestId("chart-area")).toHaveAttribute("data-state", "invalid");
    await expect(page.getByTestId("query-problems")).toHaveText("Global filter 1 needs a property.");
    await pick(page.getByRole("combobox", { name: "Filter 1: event property" }), "brow", "$browser");
    await pick(page.getByRole("combobox", { name: "Filter 1: value" }), "fire", "Firefox");
    await page.getByTestId("series-math").selectOption("dau");
    await page.getByTestId("breakdown-type").selectOption("event");
    await pick(page.getByRole("combobox", { name: "Breakdown event property" }), "pathn", "$pathname");
    await page.getByTestId("display").selectOption({ label: "Bar chart" });
    await chartReady(page);
    // The chart is drawn at a readable height (time series fill the area they are given).
    await expect(page.getByTestId("chart-area").getByTestId("tile-body")).toHaveAttribute("data-state", "ready");
    const heights = await page
      .getByTestId("chart-area")
      .locator("svg")
      .evaluateAll((svgs) => svgs.map((svg) => svg.getBoundingClientRect().height));
    expect(Math.max(0, ...heights)).toBeGreaterThan(200);
    await screenshot(page, "10-trend-built");

    // The URL holds PostHog's node.
    await expect.poll(() => {
      const param = new URL(page.url()).searchParams.get("q");
      const query = param ? (JSON.parse(LZString.decompressFromEncodedURIComponent(param) ?? "null") as { source?: Record<string, unknown> }) : null;
      return query?.source?.trendsFilter;
    }).toEqual({ display: "ActionsBar" });
    const query = JSON.parse(LZString.decompressFromEncodedURIComponent(new URL(page.url()).searchParams.get("q")!)!) as { source: Record<string, unknown> };
    expect(query.source).toMatchObject({
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }],
      properties: [{ key: "$browser", operator: "exact", type: "event", value: ["Firefox"] }],
      breakdownFilter: { breakdown: "$pathname", breakdown_type: "event" },
    });

    // A property math without its property is named, and clears the chart.
    await page.getByTestId("series-math").selectOption("sum");
    await expect(page.getByTestId("chart-area")).toHaveAttribute("data-state", "invalid");
    await expect(page.getByTestId("query-problems")).toContainText("needs a numeric property");
    await page.getByTestId("series-math").selectOption("total");
    await chartReady(page);
  });

  /** The total of a trend's first series, through the query API. */
  async function trendTotal(query: unknown): Promise<number> {
    const answer = await rest("POST", "query/", { query, refresh: true });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    return ((answer.json.results as { data: number[] }[])[0]!.data).reduce((sum, value) => sum + value, 0);
  }

  // Seeded page views: /pricing twice (ann, cy), /docs twice (ben), /home five times, /blog once.
  const PRICING_OR_DOCS = {
    type: "OR",
    values: [
      {
        type: "AND",
        values: [
          { key: "$pathname", value: ["/home", "/pricing"], operator: "exact", type: "event" },
          { key: "$current_url", value: "pricing", operator: "icontains", type: "event" },
        ],
      },
      { type: "AND", values: [{ key: "$pathname", value: "/docs", operator: "exact", type: "event" }] },
    ],
  };

  test("an OR of two filter groups made through the API: shown as two groups, saved with its title and dates changed, its filters untouched", async ({ page }) => {
    test.setTimeout(150_000);
    const source = {
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event: "$pageview", math: "total" }],
      dateRange: { date_from: "-7d" },
      properties: PRICING_OR_DOCS,
      compareFilter: { compare: false },
      filterTestAccounts: false,
    };
    const created = await rest("POST", "insights/", { name: "Pricing or docs", query: { kind: "InsightVizNode", source } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    // The OR's answer (2 pricing views matching both filters of group 1, 2 docs views); their AND would be none.
    expect(await trendTotal(source)).toBe(4);
    expect(await trendTotal({ ...source, properties: PRICING_OR_DOCS.values.flatMap((group) => group.values) })).toBe(0);

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights/${String(created.json.short_id)}`);
    await chartReady(page);
    const filters = page.getByTestId("filters-section");
    const groups = filters.getByTestId("filter-group");
    await expect(groups).toHaveCount(2);
    await expect(filters.getByRole("group", { name: "Match all or any groups" })).toBeVisible();
    await expect(filters.getByTestId("groups-type-or")).toHaveAttribute("aria-pressed", "true");
    await expect(filters.getByTestId("groups-type-and")).toHaveAttribute("aria-pressed", "false");
    await expect(groups.nth(0).getByTestId("filter-row")).toHaveCount(2);
    await expect(groups.nth(1).getByTestId("filter-row")).toHaveCount(1);
    await expect(groups.nth(0).getByTestId("group-type-and")).toHaveAttribute("aria-pressed", "true");
    await expect(page.getByRole("combobox", { name: "Group 1 filter 2: event property" })).toHaveValue("$current_url");
    await expect(page.getByRole("combobox", { name: "Group 2 filter 1: value" })).toHaveValue("/docs");
    await expect(filters.getByTestId("groups-joiner")).toHaveText("OR");
    await expect(page.getByText("Unsaved changes")).toHaveCount(0);
    await filters.scrollIntoViewIfNeeded();
    await screenshot(page, "11-filter-groups-1280");
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoHorizontalScroll(page);
    await filters.scrollIntoViewIfNeeded();
    await screenshot(page, "12-filter-groups-390", { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Only the dates and the title change.
    await page.getByTestId("date-from").selectOption("-14d");
    await chartReady(page);
    await page.getByTestId("save-insight").click();
    const dialog = page.getByTestId("save-dialog");
    await dialog.getByTestId("insight-name").fill("Pricing or docs, two weeks");
    await dialog.getByTestId("save-confirm").click();
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId("insight-title")).toHaveText("Pricing or docs, two weeks");

    const read = await rest("GET", `insights/${String(created.json.id)}/`);
    expect(read.status).toBe(200);
    const saved = (read.json.query as { source: Record<string, unknown> }).source;
    expect(saved.properties).toEqual(PRICING_OR_DOCS);
    expect(saved).toEqual({ ...source, dateRange: { date_from: "-14d" } });
    expect(await trendTotal(saved)).toBe(4);
  });

  test("a link to a new insight keeps, when saved, what the editor has no control for", async ({ page }) => {
    test.setTimeout(120_000);
    // A shared link to the web analytics graph's query: its tag (which counts by session start), the comparison and the chart type have no control in the form.
    const source = {
      kind: "TrendsQuery",
      tags: { productKey: "web_analytics" },
      series: [{ kind: "EventsNode", event: "$pageview", name: "$pageview", math: "dau" }],
      interval: "day",
      dateRange: { date_from: "-7d" },
      compareFilter: { compare: true },
      trendsFilter: { display: "ActionsLineGraph" },
    };
    const q = LZString.compressToEncodedURIComponent(JSON.stringify({ kind: "InsightVizNode", source }));
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights/new?q=${q}`);
    await chartReady(page);
    await page.getByTestId("date-from").selectOption("-14d");
    await chartReady(page);
    await page.getByTestId("save-insight").click();
    const dialog = page.getByTestId("save-dialog");
    await dialog.getByTestId("insight-name").fill("Visitors from the web page");
    await dialog.getByTestId("save-confirm").click();
    await expect(dialog).toBeHidden();
    const listed = await rest("GET", `insights/?search=${encodeURIComponent("Visitors from the web page")}`);
    const results = listed.json.results as { query: { source: unknown } }[];
    expect(results).toHaveLength(1);
    expect(results[0]!.query.source).toEqual({ ...source, dateRange: { date_from: "-14d" } });
  });

  test("filters the editor cannot edit are shown read-only, kept on save, and can be removed", async ({ page }) => {
    test.setTimeout(120_000);
    // A negated leaf (the row has no control for negation) and a group three levels deep.
    const notHome = { key: "$pathname", value: ["/home"], operator: "exact", type: "event", negation: true };
    const deep = { type: "OR", values: [{ key: "$pathname", value: ["/docs", "/home"], operator: "exact", type: "event" }, { type: "AND", values: [{ key: "plan", value: "pro", type: "event" }, { key: "$browser", operator: "is_set", type: "event" }] }] };
    const properties = { type: "AND", values: [{ type: "AND", values: [notHome, deep] }] };
    const source = { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], properties };
    const created = await rest("POST", "insights/", { name: "Docs views", query: { kind: "InsightVizNode", source } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    // /docs or /home (page views carry no plan), but not /home: the two /docs views.
    expect(await trendTotal(source)).toBe(2);

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights/${String(created.json.short_id)}`);
    await chartReady(page);
    const kept = page.getByTestId("filters-section").getByTestId("kept-filter");
    await expect(kept).toHaveCount(2);
    await expect(kept.nth(0)).toContainText('event · $pathname · exact · ["/home"] · negation: true');
    await expect(kept.nth(1)).toContainText("3 nested conditions (OR), edit through the API");
    await page.getByTestId("filters-section").scrollIntoViewIfNeeded();
    await screenshot(page, "13-kept-filters", { fullPage: false });

    await page.getByTestId("save-insight").click();
    const dialog = page.getByTestId("save-dialog");
    await dialog.getByTestId("insight-name").fill("Docs views (kept)");
    await dialog.getByTestId("save-confirm").click();
    await expect(page.getByTestId("insight-title")).toHaveText("Docs views (kept)");
    const read = await rest("GET", `insights/${String(created.json.id)}/`);
    expect((read.json.query as { source: unknown }).source).toEqual(source);

    // Removed in the editor, the negated filter is gone from the saved node; the deeper group stays whole.
    await page.getByRole("button", { name: "Remove Filter 1" }).click();
    await expect(kept).toHaveCount(1);
    await chartReady(page);
    await page.getByTestId("save-insight").click();
    await page.getByTestId("save-dialog").getByTestId("save-confirm").click();
    await expect(page.getByTestId("save-dialog")).toBeHidden();
    await expect(page.getByText("Unsaved changes")).toHaveCount(0);
    const after = await rest("GET", `insights/${String(created.json.id)}/`);
    const saved = (after.json.query as { source: Record<string, unknown> }).source;
    expect(saved.properties).toEqual([deep]);
    expect(await trendTotal(saved)).toBe(7);
  });

  test("build an OR of two filter groups in the editor: the saved node and its answer", async ({ page }) => {
    test.setTimeout(150_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights/new`);
    await chartReady(page);
    const filters = page.getByTestId("filters-section");
    await filters.getByTestId("add-filter").click();
    await page.getByRole("combobox", { name: "Filter 1: event property" }).fill("$pathname");
    await page.getByRole("combobox", { name: "Filter 1: value" }).fill("/pricing");
    // One group: no outer toggle yet.
    await expect(filters.getByTestId("groups-type")).toHaveCount(0);
    await filters.getByTestId("add-filter-group").click();
    await expect(filters.getByTestId("filter-group")).toHaveCount(2);
    await page.getByRole("combobox", { name: "Group 2 filter 1: event property" }).fill("$pathname");
    await page.getByRole("combobox", { name: "Group 2 filter 1: value" }).fill("/docs");
    // Two groups joined by AND match nothing; by OR, both pages.
    await expect(filters.getByTestId("groups-type-and")).toHaveAttribute("aria-pressed", "true");
    await filters.getByTestId("groups-type-or").focus();
    await page.keyboard.press("Enter");
    await expect(filters.getByTestId("groups-type-or")).toHaveAttribute("aria-pressed", "true");
    await expect(filters.getByTestId("groups-joiner")).toHaveText("OR");
    await chartReady(page);

    await page.getByTestId("save-insight").click();
    const dialog = page.getByTestId("save-dialog");
    await dialog.getByTestId("insight-name").fill("Pricing or docs, built");
    await dialog.getByTestId("save-confirm").click();
    await expect(page.getByTestId("insight-title")).toHaveText("Pricing or docs, built");
    const shortId = new URL(page.url()).pathname.split("/").pop();
    const list = await rest("GET", `insights/?short_id=${shortId}`);
    const insight = (list.json.results as { query: { source: Record<string, unknown> } }[])[0]!;
    expect(insight.query.source.properties).toEqual({
      type: "OR",
      values: [
        { type: "AND", values: [{ key: "$pathname", operator: "exact", type: "event", value: ["/pricing"] }] },
        { type: "AND", values: [{ key: "$pathname", operator: "exact", type: "event", value: ["/docs"] }] },
      ],
    });
    expect(await trendTotal(insight.query.source)).toBe(4);
    expect(await trendTotal({ ...insight.query.source, properties: { ...(insight.query.source.properties as object), type: "AND" } })).toBe(0);

    // Opened again, the groups are as built; removing a group leaves one AND group, saved as a flat list.
    await page.reload();
    await chartReady(page);
    await expect(filters.getByTestId("filter-group")).toHaveCount(2);
    await filters.getByRole("button", { name: "Remove filter group 2" }).click();
    await expect(filters.getByTestId("groups-type")).toHaveCount(0);
    await chartReady(page);
    await page.getByTestId("save-insight").click();
    await page.getByTestId("save-dialog").getByTestId("save-confirm").click();
    await expect(page.getByTestId("save-dialog")).toBeHidden();
    await expect(page.getByText("Unsaved changes")).toHaveCount(0);
    const again = await rest("GET", `insights/?short_id=${shortId}`);
    const source = (again.json.results as { query: { source: Record<string, unknown> } }[])[0]!.query.source;
    expect(source.properties).toEqual([{ key: "$pathname", operator: "exact", type: "event", value: ["/pricing"] }]);
    expect(await trendTotal(source)).toBe(2);
  });

  test("on a phone the panels stack above the chart; a funnel by keyboard", async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights/new`);
    await chartReady(page);
    await page.getByRole("tab", { name: "Funnels" }).click();
    await pickEvent(page, 0, "sign", "sign up");
    await page.getByTestId("add-series").click();
    await pickEvent(page, 1, "play", "play movie");
    await chartReady(page);
    await expect(page.getByTestId("chart-area").getByTestId("funnel-step-count")).toHaveText(["3", "2"]);
    const panels = await page.getByTestId("query-panels").boundingBox();
    const chart = await page.getByTestId("insight-chart-card").boundingBox();
    expect(panels && chart && panels.y + panels.height <= chart.y).toBe(true);
    // Nothing wider than the screen.
    await expectNoHorizontalScroll(page);
    await screenshot(page, "09-phone-funnel");
  });
});
