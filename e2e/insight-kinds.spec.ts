/**
 * Every insight kind on a dashboard: events sent through /batch/, one saved insight per kind
 * (trends, funnel steps and time to convert, retention, lifecycle, stickiness, paths, HogQL)
 * created with the REST API onto one dashboard, which is opened at 1280×800 and 390×844 and
 * shared: each tile draws its kind, not the error state. Then the persons behind a funnel
 * step are listed in a dialog (mouse) and a retention cell's (keyboard), and a person link
 * is followed. A kind whose server is not in this build (the query API answers "is not
 * supported") is skipped with that reason; nothing else is.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support/accounts";
import { expectNoHorizontalScroll, screenshot, useBootstrappedSite } from "./support/site";

const OWNER = { email: "owner@kinds.test", password: "owner-password-123" };

/** The insights, by tile title: the query's source and the renderer (`data-kind`) its tile must show. */
const KINDS: { title: string; kind: string; source: Record<string, unknown>; wrapper?: string }[] = [
  { title: "Pageviews trend", kind: "trends", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "total" }], dateRange: { date_from: "-7d" } } },
  {
    title: "Signup funnel",
    kind: "funnel",
    source: {
      kind: "FunnelsQuery",
      series: ["sign up", "play movie", "buy"].map((event) => ({ kind: "EventsNode", event })),
      dateRange: { date_from: "-7d" },
      funnelsFilter: { funnelVizType: "steps" },
    },
  },
  {
    title: "Time to convert",
    kind: "funnel-time",
    source: {
      kind: "FunnelsQuery",
      series: ["sign up", "play movie"].map((event) => ({ kind: "EventsNode", event })),
      dateRange: { date_from: "-7d" },
      funnelsFilter: { funnelVizType: "time_to_convert" },
    },
  },
  {
    title: "Retention",
    kind: "retention",
    source: {
      kind: "RetentionQuery",
      dateRange: { date_from: "-7d" },
      retentionFilter: { targetEntity: { id: "$pageview", type: "events" }, returningEntity: { id: "$pageview", type: "events" }, period: "Day", totalIntervals: 7 },
    },
  },
  { title: "Lifecycle", kind: "lifecycle", source: { kind: "LifecycleQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-7d" }, interval: "day" } },
  { title: "Stickiness", kind: "stickiness", source: { kind: "StickinessQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-7d" }, interval: "day" } },
  { title: "Paths", kind: "paths", source: { kind: "PathsQuery", dateRange: { date_from: "-7d" }, pathsFilter: { includeEventTypes: ["$pageview"] } } },
  {
    title: "Events by name",
    kind: "hogql",
    wrapper: "DataTableNode",
    source: { kind: "HogQLQuery", query: "select event, count() as total from events group by event order by total desc" },
  },
];

test.describe("insight kinds on dashboards", () => {
  const site = useBootstrappedSite(OWNER);

  async function rest(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${site.url}/api/projects/${site.projectId}/${path}`, {
      method,
      headers: { authorization: `Bearer ${site.personalKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  /** Each insight tile's title → its body's kind and state, once none is computing. */
  async function tileStates(page: Page, count: number): Promise<Record<string, { kind: string | null; state: string | null }>> {
    const tiles = page.getByTestId("insight-tile");
    await expect(tiles).toHaveCount(count);
    await expect(tiles.getByTestId("tile-body").and(page.locator('[data-state="loading"]'))).toHaveCount(0, { timeout: 60_000 });
    const out: Record<string, { kind: string | null; state: string | null }> = {};
    for (const tile of await tiles.all()) {
      const body = tile.getByTestId("tile-body");
      out[(await tile.getByTestId("tile-title").textContent()) ?? ""] = { kind: await body.getAttribute("data-kind"), state: await body.getAttribute("data-state") };
    }
    return out;
  }

  test("each kind's tile draws its result; funnel steps and retention cells list their persons", async ({ page, browser }) => {
    test.setTimeout(300_000);
    // Three days of a small shop, all in the past hour-aligned to avoid the future.
    const base = Date.now() - 2 * 3600_000;
    const at = (daysAgo: number, minutes: number) => new Date(base - daysAgo * 86_400_000 + minutes * 60_000).toISOString();
    const pageview = (distinct_id: string, daysAgo: number, minutes: number, path: string) => ({
      event: "$pageview",
      distinct_id,
      timestamp: at(daysAgo, minutes),
      properties: { $current_url: `https://shop.example${path}`, $pathname: path },
    });
    const event = (distinct_id: string, name: string, daysAgo: number, minutes: number) => ({ event: name, distinct_id, timestamp: at(daysAgo, minutes), properties: {} });
    const batch = [
      { event: "$identify", distinct_id: "ann", timestamp: at(3, 0), properties: { $set: { email: "ann@shop.example" } } },
      { event: "$identify", distinct_id: "ben", timestamp: at(3, 0), properties: { $set: { email: "ben@shop.example" } } },
      { event: "$identify", distinct_id: "cy", timestamp: at(2, 0), properties: { $set: { email: "cy@shop.example" } } },
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
      pageview("dee", 0, 0, "/home"),
    ];
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch }) });
    expect(await sent.text()).toBe('{"status":1}');

    const dashboard = await rest("POST", "dashboards/", { name: "Every kind" });
    expect(dashboard.status, JSON.stringify(dashboard.json)).toBe(201);
    const unavailable: string[] = [];
    for (const { title, source, wrapper } of KINDS) {
      const created = await rest("POST", "insights/", { name: title, query: { kind: wrapper ?? "InsightVizNode", source }, dashboards: [dashboard.json.id] });
      if (created.status === 400 && /is not supported/.test(String(created.json.detail))) {
        // This build has no server for the kind yet (it lives on another branch until merged).
        unavailable.push(`${title} (${String(source.kind)})`);
        continue;
      }
      expect(created.status, `${title}: ${JSON.stringify(created.json)}`).toBe(201);
    }
    if (unavailable.length > 0) test.info().annotations.push({ type: "skipped tiles", description: `No server for: ${unavailable.join(", ")}` });
    const expected = Object.fromEntries(KINDS.filter(({ title }) => !unavailable.some((name) => name.startsWith(`${title} (`))).map(({ title, kind }) => [title, { kind, state: "ready" }]));

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/dashboards/${String(dashboard.json.id)}`);
    await expect(page.getByTestId("insight-tile")).toHaveCount(Object.keys(expected).length);
    expect(await tileStates(page, Object.keys(expected).length)).toEqual(expected);
    if (expected["Signup funnel"]) {
      const steps = page.getByTestId("insight-tile").filter({ hasText: "Signup funnel" }).getByTestId("funnel-step");
      await expect(steps).toHaveCount(3);
      await expect(steps.nth(0).getByTestId("funnel-step-count")).toHaveText("3");
      await expect(steps.nth(2).getByTestId("funnel-step-from-first")).toHaveText("33.3%");
    }
    await screenshot(page, "01-kinds-desktop");

    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    expect(await tileStates(page, Object.keys(expected).length)).toEqual(expected);
    await screenshot(page, "02-kinds-mobile");

    // The shared page draws the same kinds, with nothing to click.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId("open-share").click();
    const share = page.getByTestId("share-dialog");
    await share.getByTestId("share-toggle").click();
    const link = await share.getByTestId("share-url").inputValue();
    await page.keyboard.press("Escape");
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const visitor = await context.newPage();
    await visitor.goto(link);
    expect(await tileStates(visitor, Object.keys(expected).length)).toEqual(expected);
    await expect(visitor.getByTestId("chart-points")).toHaveCount(0);
    await screenshot(visitor, "03-kinds-shared");
    await context.close();

    // Who are these people: the persons behind a funnel step, then one of them.
    test.skip(!expected["Signup funnel"], "No funnel server in this build: the persons dialog is opened from a funnel step.");
    const funnel = page.getByTestId("insight-tile").filter({ hasText: "Signup funnel" });
    await funnel.getByTestId("funnel-step").nth(1).getByTestId("funnel-step-bar").click();
    // Each tile has its dialog; the open one is in the top layer.
    const dialog = page.locator('dialog[open][data-testid="persons-dialog"]');
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("heading")).toHaveText("Reached step 2: play movie");
    await expect(dialog.getByTestId("persons-list").or(dialog.getByTestId("persons-error"))).toBeVisible({ timeout: 30_000 });
    const actorsMissing = await dialog.getByTestId("persons-error").isVisible();
    test.skip(actorsMissing && /No procedure|NOT_FOUND|not found/i.test(await dialog.innerText()), "No query.actors procedure in this build (the q-api branch adds it).");
    await expect(dialog.getByTestId("persons-link")).toHaveCount(2);
    expect((await dialog.getByTestId("persons-link").allInnerTexts()).sort()).toEqual(["ann@shop.example", "ben@shop.example"]);
    await screenshot(page, "04-persons-dialog", { fullPage: false });

    // From the keyboard: Escape closes and gives focus back; a retention cell opens its cohort.
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    if (expected["Retention"]) {
      // Day 0 of a cohort that has persons (the earliest cohorts of the range are empty).
      const cell = page.getByTestId("insight-tile").filter({ hasText: "Retention" }).getByTestId("retention-cell").filter({ hasText: "100%" }).first();
      await cell.focus();
      await page.keyboard.press("Enter");
      await expect(dialog).toBeVisible();
      await expect(dialog.getByTestId("persons-link").first()).toBeVisible({ timeout: 30_000 });
      await page.keyboard.press("Escape");
    }

    await funnel.getByTestId("funnel-step").nth(0).getByTestId("funnel-step-bar").click();
    await dialog.getByTestId("persons-link").filter({ hasText: "ann@shop.example" }).click();
    await expect(page).toHaveURL(/\/persons\/[0-9a-f-]{36}$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("ann@shop.example");
  });
  test("a lifecycle tile says whom it leaves out, in one line that opens the full note, on the dashboard and the shared page (issue 34)", async ({ page, browser }) => {
    test.setTimeout(180_000);
    // "read article" an hour ago: rea, who has a person profile, and two anonymous visitors under
    // posthog-js's identified_only, whose events make no person: lifecycle counts rea alone.
    const at = new Date(Date.now() - 3600_000).getTime();
    const read = (distinct_id: string, offset: number, anonymous: boolean) => ({
      event: "read article",
      distinct_id,
      timestamp: new Date(at + offset * 1000).toISOString(),
      properties: anonymous ? { $process_person_profile: false } : {},
    });
    const sent = await fetch(`${site.url}/batch/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: site.projectKey, batch: [read("rea", 0, false), read("anon-reader-1", 1, true), read("anon-reader-2", 2, true), read("anon-reader-2", 3, true)] }),
    });
    expect(await sent.text()).toBe('{"status":1}');
    const dashboard = await rest("POST", "dashboards/", { name: "Readers" });
    expect(dashboard.status, JSON.stringify(dashboard.json)).toBe(201);
    const source = { kind: "LifecycleQuery", series: [{ kind: "EventsNode", event: "read article" }], dateRange: { date_from: "-7d" }, interval: "day" };
    const created = await rest("POST", "insights/", { name: "Readers' lifecycle", query: { kind: "InsightVizNode", source }, dashboards: [dashboard.json.id] });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const sharing = await rest("PATCH", `dashboards/${String(dashboard.json.id)}/sharing/`, { enabled: true });
    expect(sharing.status, JSON.stringify(sharing.json)).toBe(200);

    const line = "2 visitors without a person profile not counted";
    const full = "Lifecycle follows person profiles: 2 visitors whose events in this range came without one are left out";
    await signIn(page, OWNER, site.url);
    for (const viewport of [
      { width: 1280, height: 800, tag: "1280" },
      { width: 390, height: 844, tag: "390" },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto(`${site.url}/dashboards/${String(dashboard.json.id)}`);
      const tile = page.getByTestId("insight-tile").filter({ hasText: "Readers' lifecycle" });
      await expect(tile.getByTestId("tile-body")).toHaveAttribute("data-state", "ready", { timeout: 60_000 });
      const note = tile.getByTestId("lifecycle-personless-note");
      await expect(note).toHaveText(line);
      await expect(note).toHaveAttribute("aria-expanded", "false");
      // The line fits the tile: no wider than the chart above it.
      const [noteBox, tileBox] = [await note.boundingBox(), await tile.boundingBox()];
      expect(noteBox!.x + noteBox!.width).toBeLessThanOrEqual(tileBox!.x + tileBox!.width);
      // From the keyboard: focus, Enter opens the full note over the tile, Escape closes it.
      // (Pressed again only while it is still closed: under load the page may not have hydrated at the first press.)
      await expect(async () => {
        if ((await note.getAttribute("aria-expanded")) === "false") {
          await note.focus();
          await page.keyboard.press("Enter");
        }
        await expect(note).toHaveAttribute("aria-expanded", "true", { timeout: 1_000 });
      }).toPass({ timeout: 15_000 });
      const detail = tile.getByTestId("lifecycle-personless-detail");
      await expect(detail).toBeVisible();
      await expect(detail).toContainText(full);
      await expect(detail).toContainText("identified_only");
      await tile.scrollIntoViewIfNeeded();
      await screenshot(page, `10-lifecycle-tile-note-${viewport.tag}`, { fullPage: false });
      const axe = await new AxeBuilder({ page }).include('[data-testid="insight-tile"]').analyze();
      expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
      await page.keyboard.press("Escape");
      await expect(detail).toBeHidden();
      await expect(note).toBeFocused();
      await expectNoHorizontalScroll(page);
      if (viewport.tag === "390") {
        // Opened right after a scroll (focusing it scrolls it into view): the scroll's event comes
        // a frame later, and must not close what the key opened. (Only this page scrolls.)
        await page.evaluate(async () => {
          window.scrollTo(0, 0);
          await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
        });
        const afterScroll = await note.evaluate(async (button) => {
          window.scrollBy(0, 1);
          const scrolled = window.scrollY;
          (button as HTMLButtonElement).click();
          await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
          return { scrolled, expanded: button.getAttribute("aria-expanded") };
        });
        expect(afterScroll).toEqual({ scrolled: 1, expanded: "true" });
        await page.keyboard.press("Escape");
        await expect(detail).toBeHidden();
      }
    }

    // The shared page, without a session: the same line and note.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const visitor = await context.newPage();
    await visitor.goto(`${site.url}/shared/${String(sharing.json.access_token)}`);
    const sharedTile = visitor.getByTestId("insight-tile").filter({ hasText: "Readers' lifecycle" });
    const sharedNote = sharedTile.getByTestId("lifecycle-personless-note");
    await expect(sharedNote).toHaveText(line, { timeout: 60_000 });
    await sharedNote.click();
    await expect(sharedTile.getByTestId("lifecycle-personless-detail")).toContainText(full);
    await screenshot(visitor, "11-lifecycle-tile-note-shared-390", { fullPage: false });
    await context.close();
  });

  test("the editor's chart fixes (issue 34): a filled event field lists every event, lifecycle says whom it leaves out, a day reads by the hour, retention's curve, paths without query strings", async ({ page }) => {
    test.setTimeout(180_000);
    // Three anonymous visitors under posthog-js's identified_only (no person profile), and one who signs up.
    const now = Date.now() - 30 * 60_000;
    const anonymous = ["anon-1", "anon-2", "anon-3"].map((distinct_id, i) => ({
      event: "$pageview",
      distinct_id,
      timestamp: new Date(now + i * 1000).toISOString(),
      properties: { $process_person_profile: false, $current_url: "https://shop.example/home?utm_source=news", $pathname: "/home" },
    }));
    const kim = [
      { event: "$pageview", distinct_id: "kim", timestamp: new Date(now + 5000).toISOString(), properties: { $current_url: "https://shop.example/home", $pathname: "/home" } },
      { event: "sign up", distinct_id: "kim", timestamp: new Date(now + 6000).toISOString(), properties: {} },
    ];
    const sent = await fetch(`${site.url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: site.projectKey, batch: [...anonymous, ...kim] }) });
    expect(await sent.text()).toBe('{"status":1}');
    // Definitions follow ingestion within a flush interval (definitions.spec.ts): the picker lists what is defined when it opens.
    await expect
      .poll(async () => {
        const response = await fetch(`${site.url}/api/projects/${site.projectId}/event_definitions/?search=sign`, { headers: { authorization: `Bearer ${site.personalKey}` } });
        return ((await response.json()) as { results: { name: string }[] }).results.map((row) => row.name);
      })
      .toContain("sign up");

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, OWNER, site.url);
    await page.goto(`${site.url}/insights/new`);
    // The series' event is filled ($pageview): focusing it lists the other events too, not only itself.
    const eventField = page.getByTestId("series-row").first().getByTestId("series-event");
    await expect(eventField).toHaveValue("$pageview");
    const suggestions = page.getByTestId("series-event-suggestions");
    // Focused again if the editor re-rendered the field while its first answers arrived (the list was seen closed once).
    await expect(async () => {
      await eventField.focus();
      await expect(suggestions.getByRole("option").filter({ hasText: "sign up" })).toBeVisible({ timeout: 5_000 });
    }).toPass({ timeout: 30_000 });
    await expect(suggestions.getByRole("option").filter({ hasText: "$pageview" })).toBeVisible();
    await screenshot(page, "05-event-picker-focused", { fullPage: false });
    await page.keyboard.press("Escape");

    // Lifecycle: the three anonymous visitors are left out, and the chart says so.
    await page.getByTestId("kind-tab-lifecycle").click();
    // 14 days: the dashboard above computed 7 a moment ago, before these events (the server caches answers for a minute).
    await page.getByTestId("date-from").selectOption("-14d");
    const note = page.getByTestId("lifecycle-personless-note");
    await expect(note).toContainText("3 visitors whose events in this range came without one are left out", { timeout: 30_000 });
    await expect(note).toContainText("identified_only");
    await screenshot(page, "06-lifecycle-note");
    const axe = await new AxeBuilder({ page }).include("main").analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
    // A day's range reads by the hour (by the day it would be two points).
    await page.getByTestId("date-from").selectOption("-24h");
    await expect(page.getByTestId("interval")).toHaveValue("hour");
    await page.getByTestId("date-from").selectOption("-14d");
    await expect(page.getByTestId("interval")).toHaveValue("day");
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(note).toBeVisible();
    await screenshot(page, "07-lifecycle-note-390");
    await expectNoHorizontalScroll(page);

    // Retention draws its curve above the table.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByTestId("kind-tab-retention").click();
    await expect(page.getByTestId("retention-curve")).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId("retention-curve").locator(".recharts-line-curve")).toHaveCount(1);
    await screenshot(page, "08-retention-curve");
    const curveAxe = await new AxeBuilder({ page }).include('[data-testid="retention-curve"]').analyze();
    expect(curveAxe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);

    // Paths leave query strings out by default: /home?utm_source=news is /home.
    await page.getByTestId("kind-tab-paths").click();
    await expect(page.getByTestId("path-ignore-query")).toBeChecked();
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "09-paths-390");
  });
});
