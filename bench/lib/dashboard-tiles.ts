/**
 * `bench:dashboards --measure tiles`: a dashboard of twelve insight tiles of every kind over
 * a product-like project (bench/lib/product-events.ts), its results fetched as the
 * dashboard page fetches them — one tRPC `dashboards.results` call through the real router
 * (auth context, input parsing, the dashboard's filters, every tile computed with bounded
 * parallelism, each tile streamed as it is computed). Cold: the query cache emptied before
 * each call, with the time to its first tile. Warm: the call again, every tile from the cache. p50 and max over `runs`; the target is warm under 2 s.
 */
import { clearQueryCache } from "@/server/query/service";
import type { Database } from "@/server/db/client";
import { createCaller } from "@/server/http/trpc/root";
import { p50AndMax } from "./seed-events";
import { productEvents } from "./product-events";
import { createEventStaging, insertPersons, moveStagedEvents, stageEvents } from "./product-events-postgres";

export const WARM_TARGET_MS = 2000;

const events = (...names: string[]) => names.map((event) => ({ kind: "EventsNode", event, name: event, math: "total" }));
const trend = (series: unknown[], extra: Record<string, unknown> = {}) => ({ kind: "InsightVizNode", source: { kind: "TrendsQuery", series, interval: "day", dateRange: { date_from: "-30d" }, ...extra } });
const viz = (source: Record<string, unknown>) => ({ kind: "InsightVizNode", source });

/** The twelve tiles: trends as line (with a breakdown), number, table, pie, bar, area and DAU; funnel, retention, lifecycle, stickiness, paths. */
export const TILES: { name: string; query: unknown }[] = [
  { name: "Page views by browser", query: trend(events("$pageview"), { breakdownFilter: { breakdown: "$browser", breakdown_type: "event" } }) },
  { name: "Page views this week", query: trend(events("$pageview"), { dateRange: { date_from: "-7d" }, trendsFilter: { display: "BoldNumber" } }) },
  {
    name: "Sign-up funnel",
    query: viz({ kind: "FunnelsQuery", series: events("$pageview", "signed_up", "purchase"), dateRange: { date_from: "-30d" }, funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: "day" } }),
  },
  {
    name: "Weekly retention",
    query: viz({
      kind: "RetentionQuery",
      retentionFilter: { period: "Week", totalIntervals: 8, targetEntity: { id: "$pageview", type: "events" }, returningEntity: { id: "$pageview", type: "events" } },
    }),
  },
  { name: "Lifecycle", query: viz({ kind: "LifecycleQuery", series: events("$pageview"), interval: "day", dateRange: { date_from: "-30d" } }) },
  { name: "Stickiness", query: viz({ kind: "StickinessQuery", series: events("$pageview"), interval: "day", dateRange: { date_from: "-30d" } }) },
  { name: "Paths", query: viz({ kind: "PathsQuery", dateRange: { date_from: "-30d" }, pathsFilter: { includeEventTypes: ["$pageview"] } }) },
  { name: "Top pages", query: trend(events("$pageview"), { breakdownFilter: { breakdown: "$pathname", breakdown_type: "event" }, trendsFilter: { display: "ActionsTable" } }) },
  { name: "Browsers", query: trend(events("$pageview"), { breakdownFilter: { breakdown: "$browser", breakdown_type: "event" }, trendsFilter: { display: "ActionsPie" } }) },
  { name: "Daily active users", query: trend([{ kind: "EventsNode", event: "$pageview", math: "dau" }]) },
  { name: "Custom events weekly", query: trend(events("clicked_cta", "viewed_pricing", "searched"), { interval: "week", dateRange: { date_from: "-90d" }, trendsFilter: { display: "ActionsBar" } }) },
  { name: "Sign-ups, cumulative", query: trend(events("signed_up"), { dateRange: { date_from: "-90d" }, trendsFilter: { display: "ActionsAreaGraph" } }) },
];

export interface TilesFigures {
  /** Until the first tile of the cold call arrives (the page shows it then). */
  firstTile: { p50: number; max: number };
  cold: { p50: number; max: number };
  warm: { p50: number; max: number };
  states: string;
}

/** Seeds `eventCount` events from `personCount` persons over 90 days into the project. */
export async function seedProductEvents(db: Database, projectId: number, eventCount: number, personCount: number): Promise<void> {
  await createEventStaging(db);
  for (const chunk of productEvents({ projectId, events: eventCount, persons: personCount, end: new Date(), days: 90 })) {
    await insertPersons(db, projectId, chunk.persons);
    await stageEvents(db, chunk.events);
  }
  await moveStagedEvents(db, projectId);
}

/** Builds the dashboard through the router, then times its results call cold and warm. */
export async function timeDashboardTiles(db: Database, user: { id: number; uuid: string; email: string }, projectId: number, runs: number): Promise<TilesFigures> {
  const api = createCaller({ db, headers: new Headers(), user: { ...user, firstName: "", currentProjectId: projectId } });
  const dashboard = await api.dashboards.create({ projectId, name: "Twelve tiles" });
  for (const tile of TILES) await api.dashboards.tiles.addInsight({ projectId, dashboardId: dashboard.id, insight: tile });
  const call = async () => {
    const started = performance.now();
    const results = [];
    let firstMs = 0;
    for await (const result of await api.dashboards.results({ projectId, dashboardId: dashboard.id })) {
      if (results.length === 0) firstMs = performance.now() - started;
      results.push(result);
    }
    return { ms: performance.now() - started, firstMs, answer: { results } };
  };
  const firstTile: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  let states = "";
  for (let run = 0; run < runs; run++) {
    clearQueryCache(db);
    const first = await call();
    cold.push(first.ms);
    firstTile.push(first.firstMs);
    const second = await call();
    warm.push(second.ms);
    if (!second.answer.results.every((result) => result.state === "ready" && result.is_cached)) throw new Error("the second call did not answer every tile from the cache");
    const ready = first.answer.results.filter((result) => result.state === "ready").length;
    const failed = first.answer.results.filter((result) => result.state === "error").map((result) => (result.state === "error" ? result.message.slice(0, 80) : ""));
    states = `${first.answer.results.length} tiles, ${ready} ready${failed.length > 0 ? `; errors: ${failed.join(" | ")}` : ""}`;
  }
  return { firstTile: p50AndMax(firstTile), cold: p50AndMax(cold), warm: p50AndMax(warm), states };
}
