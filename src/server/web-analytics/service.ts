/**
 * Web analytics (PostHog's WebOverviewQuery, WebStatsTableQuery and WebTopClicksQuery runners,
 * products/web_analytics/backend/hogql_queries/): the date range and the period compared
 * with, resolved in the project's zone; the counting is the event store's (webOverview,
 * webStats, webTopClicks: db/events/web/), over the sessions table its insert keeps.
 */
import { checkEventFilters } from "@/server/events/service";
import { actionDefinitions } from "@/server/actions/service";
import type { PropertyGroup } from "@/server/properties/contract";
import type { WebGoalOrderField, WebPeriod, WebQueryBase } from "@/server/db/events";
import { parseNode, type QueryEnv, type QueryKind } from "@/server/analytics/kind";
import { shiftedBack } from "@/server/analytics/compare-to";
import { resolveDateRange, wallOf, wallText } from "@/server/analytics/date-range";
import {
  WEB_OVERVIEW_KIND,
  WEB_STATS_TABLE_KIND,
  WEB_TOP_CLICKS_COLUMNS,
  WEB_TOP_CLICKS_KIND,
  WEB_TOP_CLICKS_LIMIT,
  webTopClicksQuerySchema,
  webTopClicksSpec,
  webOverviewQuerySchema,
  webOverviewSpec,
  webStatsSpec,
  webStatsTableQuerySchema,
  type WebConversionGoal,
  type WebSpec,
  type WebStatsSpec,
} from "./contract";
import { webGoalOverviewItems, webGoalStatsColumns, webGoalStatsRows, webOverviewItems, webStatsColumns, webStatsRows } from "./present";

/**
 * The current period (a day range: from the start of date_from's day to the end of
 * date_to's) and, with a comparison, the one just before it of the same length (PostHog's
 * QueryPreviousPeriodDateRange), or with compare_to the current one moved back by that much
 * on the zone's wall clock (QueryCompareToDateRange; it may overlap the current one).
 */
async function periods(env: QueryEnv, spec: WebSpec): Promise<{ current: WebPeriod; previous: WebPeriod | null }> {
  const earliest = spec.dateRange.date_from === "all" ? await env.db.events.earliestTimestamp(env.projectId) : null;
  const range = resolveDateRange(spec.dateRange, "day", env.zone, env.now, earliest);
  const current = { from: range.from, to: range.to };
  if (spec.compare === false) return { current, previous: null };
  if (typeof spec.compare === "string") {
    return { current, previous: { from: shiftedBack(current.from, spec.compare, env.zone), to: shiftedBack(current.to, spec.compare, env.zone) } };
  }
  const length = current.to.getTime() + 1 - current.from.getTime();
  return { current, previous: { from: new Date(current.from.getTime() - length), to: new Date(current.from.getTime() - 1) } };
}

async function baseQuery(env: QueryEnv, spec: WebSpec): Promise<WebQueryBase> {
  return { ...(await periods(env, spec)), filters: spec.properties ? [spec.properties] : [], now: env.now };
}

/** `text` as a regular expression matching only itself, in the subset every store reads alike. */
const literal = (text: string) => text.replace(/[\\^$.|?*+()[\]{}\-/#&~<>=!:,"'%@`;]/g, "\\$&");
/** A page goal's text as a pattern, `*` standing for any characters. */
const wildcard = (text: string) => text.split("*").map(literal).join(".*");

/**
 * The goal as a filter tree on the event: the event's name; the action's steps (a missing or
 * deleted action is a 400 naming it); or a `$pageview` whose `$pathname` is the path, or
 * whose `$current_url` contains the URL (case-sensitive both, as PostHog's action steps).
 */
async function goalTree(env: QueryEnv, goal: WebConversionGoal): Promise<PropertyGroup> {
  const leaf = (type: "event" | "event_metadata", key: string, operator: "exact" | "regex", value: string | string[]) => ({ type, key, operator, value, negation: false });
  if ("customEventName" in goal) return { type: "AND", values: [leaf("event_metadata", "event", "exact", [goal.customEventName])] };
  if ("actionId" in goal) return (await actionDefinitions(env.db.prisma, env.projectId, [goal.actionId])).get(goal.actionId)!.tree;
  const page = "pathname" in goal ? leaf("event", "$pathname", "regex", `^${wildcard(goal.pathname)}$`) : leaf("event", "$current_url", "regex", wildcard(goal.url));
  return { type: "AND", values: [leaf("event_metadata", "event", "exact", ["$pageview"]), page] };
}

async function checkWeb(env: QueryEnv, spec: WebSpec): Promise<void> {
  await checkEventFilters(env.db, env.projectId, [spec.properties]);
  if (spec.goal !== null) await goalTree(env, spec.goal);
}

/** PostHog's dateFrom / dateTo of the answer: wall-clock text in the project's zone. */
function dateTexts(env: QueryEnv, query: WebQueryBase) {
  return { dateFrom: wallText(wallOf(query.current.from, env.zone)), dateTo: wallText(wallOf(query.current.to, env.zone)) };
}

export const webOverviewKind: QueryKind<WebSpec> = {
  kind: WEB_OVERVIEW_KIND,
  spec: (node, override) => webOverviewSpec(parseNode(webOverviewQuerySchema, node), override),
  check: checkWeb,
  async compute(env, spec) {
    const query = await baseQuery(env, spec);
    const results =
      spec.goal === null
        ? webOverviewItems(await env.db.events.webOverview(env.projectId, query))
        : webGoalOverviewItems(await env.db.events.webGoalOverview(env.projectId, { ...query, goal: await goalTree(env, spec.goal) }));
    return {
      results,
      range: query.current,
      extra: { ...dateTexts(env, query), samplingRate: { numerator: 1, denominator: null }, usedPreAggregatedTables: false },
      weight: 10,
    };
  },
};

export const webStatsTableKind: QueryKind<WebStatsSpec> = {
  kind: WEB_STATS_TABLE_KIND,
  spec: (node, override) => webStatsSpec(parseNode(webStatsTableQuerySchema, node), override),
  check: checkWeb,
  async compute(env, spec) {
    const base = await baseQuery(env, spec);
    if (spec.goal !== null) return goalStats(env, spec, base, await goalTree(env, spec.goal));
    const query = { ...base, breakdown: spec.breakdownBy, includeBounceRate: spec.includeBounceRate, includeHost: spec.includeHost, limit: spec.limit, offset: spec.offset, orderBy: spec.orderBy };
    const answer = await env.db.events.webStats(env.projectId, { ...query, orderBy: query.orderBy as WebStatsSpec["orderBy"] & { field: "Visitors" | "Views" | "BounceRate" } });
    const results = webStatsRows(answer);
    return {
      results,
      range: base.current,
      extra: {
        columns: webStatsColumns(spec.includeBounceRate),
        hasMore: answer.hasMore,
        limit: spec.limit,
        offset: spec.offset,
        samplingRate: { numerator: 1, denominator: null },
        usedPreAggregatedTables: false,
      },
      weight: results.length * 4 + 1,
    };
  },
};

/** The stats table with a conversion goal: PostHog's conversion columns instead of views and bounce rate. */
async function goalStats(env: QueryEnv, spec: WebStatsSpec, base: WebQueryBase, goal: PropertyGroup) {
  const orderBy = spec.orderBy === null ? null : { field: spec.orderBy.field as WebGoalOrderField, direction: spec.orderBy.direction };
  const query = { ...base, goal, breakdown: spec.breakdownBy, includeHost: spec.includeHost, limit: spec.limit, offset: spec.offset, orderBy };
  const answer = await env.db.events.webGoalStats(env.projectId, query);
  const results = webGoalStatsRows(answer);
  return {
    results,
    range: base.current,
    extra: { columns: webGoalStatsColumns(), hasMore: answer.hasMore, limit: spec.limit, offset: spec.offset, samplingRate: { numerator: 1, denominator: null }, usedPreAggregatedTables: false },
    weight: results.length * 5 + 1,
  };
}

export const webTopClicksKind: QueryKind<WebSpec> = {
  kind: WEB_TOP_CLICKS_KIND,
  spec: (node, override) => webTopClicksSpec(parseNode(webTopClicksQuerySchema, node), override),
  check: checkWeb,
  async compute(env, spec) {
    const query = { ...(await baseQuery(env, spec)), limit: WEB_TOP_CLICKS_LIMIT };
    const clicks = await env.db.events.webTopClicks(env.projectId, query);
    return {
      results: clicks.map((click) => [click.text, click.clicks, click.visitors]),
      range: query.current,
      extra: { ...dateTexts(env, query), columns: [...WEB_TOP_CLICKS_COLUMNS], samplingRate: { numerator: 1, denominator: null } },
      weight: clicks.length * 3 + 1,
    };
  },
};
