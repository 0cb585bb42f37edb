/**
 * PostHog's web analytics query nodes (frontend/src/queries/schema/schema-general.ts:
 * `WebAnalyticsQueryBase`, `WebOverviewQuery`, `WebStatsTableQuery` with its `orderBy`,
 * `WebStatsBreakdown`, `WebTopClicksQuery`, and their responses), checked and reduced to
 * the answer-deciding specs. Client-safe: the /web page builds its queries and reads its
 * answers with these types.
 */
import { COMPARE_TO, COMPARE_TO_MESSAGE } from "@/server/analytics/compare-to";
import { z } from "zod";
import type { PropertyGroup } from "@/server/properties/contract";
import { andGroups, dateRangeSchema, notSupported, overriddenDateRange, propertiesField, shown, type FiltersOverride } from "@/server/analytics/nodes";

export const WEB_OVERVIEW_KIND = "WebOverviewQuery";
export const WEB_STATS_TABLE_KIND = "WebStatsTableQuery";
export const WEB_TOP_CLICKS_KIND = "WebTopClicksQuery";

/** PostHog's top clicks: ten rows (its LIMIT 10), [element text, clicks, visitors]. */
export const WEB_TOP_CLICKS_LIMIT = 10;
export const WEB_TOP_CLICKS_COLUMNS = ["el_text", "total_clicks", "unique_visitors"] as const;

/** The breakdowns of WebStatsTableQuery Burrow answers (PostHog's WebStatsBreakdown, less ExitClick, PreviousPage, ScreenName, channel types and FrustrationMetrics). */
export const WEB_STATS_BREAKDOWNS = [
  "Page",
  "InitialPage",
  "ExitPage",
  "InitialReferringDomain",
  "InitialUTMSource",
  "InitialUTMMedium",
  "InitialUTMCampaign",
  "InitialUTMTerm",
  "InitialUTMContent",
  "Country",
  "Region",
  "City",
  "DeviceType",
  "Browser",
  "OS",
  "Viewport",
  "Language",
  "Timezone",
] as const;
export type WebStatsBreakdown = (typeof WEB_STATS_BREAKDOWNS)[number];

/** PostHog's DEFAULT_RETURNED_ROWS, and the most rows one page may ask for. */
export const DEFAULT_WEB_STATS_LIMIT = 100;
export const MAX_WEB_STATS_LIMIT = 1000;
/** How far a table may be paged (PostHog pages by `limit` rows; 2³¹−1 answered "must be a number", issue 32). */
export const MAX_WEB_STATS_OFFSET = 1_000_000;

/** The overview's items, in PostHog's order (web_overview.py); with a conversion goal, visitors and the goal's three. */
export const WEB_OVERVIEW_KEYS = ["visitors", "views", "sessions", "session duration", "bounce rate", "total conversions", "unique conversions", "conversion rate"] as const;
export type WebOverviewKey = (typeof WEB_OVERVIEW_KEYS)[number];

/** PostHog's WebOverviewItem. `percentage` values are 0–100, `duration_s` seconds. */
export interface WebOverviewItem {
  key: WebOverviewKey;
  kind: "unit" | "duration_s" | "percentage";
  isIncreaseBad?: boolean;
  value: number | null;
  /** Null unless compareFilter.compare. */
  previous: number | null;
  /** round(100 · (value − previous) / previous); null without a previous value or when it is 0. */
  changeFromPreviousPct: number | null;
}

/** The stats table's columns (PostHog's `context.columns.*` names), in order. */
export const WEB_STATS_COLUMNS = {
  breakdownValue: "context.columns.breakdown_value",
  visitors: "context.columns.visitors",
  views: "context.columns.views",
  bounceRate: "context.columns.bounce_rate",
  fillFraction: "context.columns.ui_fill_fraction",
  crossSell: "context.columns.cross_sell",
  totalConversions: "context.columns.total_conversions",
  uniqueConversions: "context.columns.unique_conversions",
  conversionRate: "context.columns.conversion_rate",
} as const;

/**
 * One row: `[value, [visitors, previous], [views, previous], ([bounce 0–1, previous],)
 * ui_fill_fraction, ""]`; previous values are null without a comparison. The value is text,
 * a number (Timezone: hours from UTC) or a list (Region: [country, subdivision code,
 * subdivision name]; City: [country, city]; Viewport: [width, height]); null for none.
 */
export type WebStatsRow = [unknown, ...unknown[]];

/** PostHog's WebAnalyticsOrderByFields; Burrow's tables order by those of their columns: Visitors, Views and (with includeBounceRate) BounceRate. */
export const WEB_ORDER_BY_FIELDS = [
  "Visitors",
  "Views",
  "Clicks",
  "BounceRate",
  "AverageScrollPercentage",
  "ScrollGt80Percentage",
  "TotalConversions",
  "UniqueConversions",
  "ConversionRate",
  "ConvertingUsers",
  "RageClicks",
  "DeadClicks",
  "Errors",
] as const;
export const WEB_ORDERABLE_FIELDS = ["Visitors", "Views", "BounceRate"] as const;
/** With a conversion goal the table's figures are visitors and the goal's (PostHog's conversion columns). */
export const WEB_GOAL_ORDERABLE_FIELDS = ["Visitors", "TotalConversions", "UniqueConversions", "ConversionRate"] as const;
export type WebGoalOrderField = (typeof WEB_GOAL_ORDERABLE_FIELDS)[number];
export type WebOrderField = (typeof WEB_ORDERABLE_FIELDS)[number];
export const WEB_ORDER_DIRECTIONS = ["ASC", "DESC"] as const;
export type WebOrderDirection = (typeof WEB_ORDER_DIRECTIONS)[number];
/** PostHog's WebAnalyticsOrderBy: [field, direction]. */
export type WebOrderBy = [WebOrderField, WebOrderDirection];

const orderBySchema = z
  .tuple(
    [
      z.enum(WEB_ORDER_BY_FIELDS, { error: (issue) => `orderBy field ${shown(issue.input)} is not one of ${WEB_ORDER_BY_FIELDS.join(", ")}.` }),
      z.enum(WEB_ORDER_DIRECTIONS, { error: (issue) => `orderBy direction ${shown(issue.input)} must be ASC or DESC.` }),
    ],
    { error: "orderBy must be a [field, direction] pair, such as [\"Views\", \"DESC\"]." },
  )
  .nullish();

const compareFilterSchema = z
  .looseObject({
    compare: z.boolean({ error: "compare must be a boolean." }).nullish(),
    compare_to: z.string({ error: COMPARE_TO_MESSAGE }).max(10, COMPARE_TO_MESSAGE).regex(COMPARE_TO, COMPARE_TO_MESSAGE).nullish(),
  })
  .nullish();

/**
 * PostHog's WebAnalyticsConversionGoal: an event (CustomEventConversionGoal) or an action
 * (ActionConversionGoal); and Burrow's page goals (Plausible's pageview goal), a `$pageview`
 * of a page, `*` standing for any characters: `pathname` matches the whole `$pathname`;
 * `url` matches any `$current_url` containing it, as a PostHog action's page-view step
 * matches its URL by default (`url_matching: "contains"`, case-sensitive).
 */
export type WebConversionGoal = { customEventName: string } | { actionId: number } | { pathname: string } | { url: string };
const GOAL_MESSAGE = 'conversionGoal must be {"customEventName": "<event>"}, {"actionId": <id>}, {"pathname": "/path"} or {"url": "https://…"}.';
/** `$pathname` carries neither a query string nor a fragment: a goal with one could never match. */
const PATHNAME_ONLY = /^[^?#]*$/;
const conversionGoalSchema = z.union(
  [
    z.looseObject({ customEventName: z.string({ error: "customEventName must be text." }).min(1, "customEventName must not be empty.").max(400, "customEventName must be at most 400 characters.") }),
    z.looseObject({ actionId: z.number({ error: "actionId must be a number." }).int("actionId must be an integer.").positive("actionId must be positive.").max(2 ** 31 - 1) }),
    z.looseObject({
      pathname: z
        .string({ error: "pathname must be text." })
        .min(1)
        .max(1000, "pathname must be at most 1000 characters.")
        .startsWith("/", "pathname must start with /.")
        .regex(PATHNAME_ONLY, 'pathname is the path alone, without ? or #; to match the full URL give {"url": "…"}.'),
    }),
    z.looseObject({ url: z.string({ error: "url must be text." }).min(1, "url must not be empty.").max(2000, "url must be at most 2000 characters.") }),
  ],
  { error: GOAL_MESSAGE },
);

function goalOf(goal: z.output<typeof conversionGoalSchema> | null | undefined): WebConversionGoal | null {
  if (!goal) return null;
  const fields = goal as Record<string, unknown>;
  if (typeof fields.customEventName === "string") return { customEventName: fields.customEventName };
  if (typeof fields.actionId === "number") return { actionId: fields.actionId };
  if (typeof fields.pathname === "string") return { pathname: fields.pathname };
  return { url: String(fields.url) };
}

/** WebAnalyticsQueryBase's fields: those that would change the answer and are not supported are a 400. */
const webBaseShape = {
  properties: propertiesField,
  dateRange: dateRangeSchema.nullish(),
  compareFilter: compareFilterSchema,
  conversionGoal: conversionGoalSchema.nullish(),
  // Read by the query service, which lays the project's test account filters over the properties (query/test-accounts.ts).
  filterTestAccounts: z.boolean({ error: "filterTestAccounts must be a boolean." }).nullish(),
  // Burrow has no path-cleaning rules or revenue: nothing to apply.
  doPathCleaning: z.boolean().nullish(),
  includeRevenue: z.boolean().nullish(),
  // Accepted and ignored, as PostHog's newest runner does: the answers are exact.
  sampling: z.unknown().optional(),
  samplingFactor: z.unknown().optional(),
  useSessionsTable: z.unknown().optional(),
  modifiers: z.unknown().optional(),
  interval: z.unknown().optional(),
};

export const webOverviewQuerySchema = z.looseObject({
  kind: z.literal(WEB_OVERVIEW_KIND, { error: (issue) => `Query kind ${shown(issue.input)} is not supported; use ${WEB_OVERVIEW_KIND}.` }),
  ...webBaseShape,
});
export type WebOverviewQuery = z.input<typeof webOverviewQuerySchema>;

/** WebTopClicksQuery: the base's fields; a comparison changes nothing (PostHog's runner reads the current period only). */
export const webTopClicksQuerySchema = z.looseObject({
  kind: z.literal(WEB_TOP_CLICKS_KIND, { error: (issue) => `Query kind ${shown(issue.input)} is not supported; use ${WEB_TOP_CLICKS_KIND}.` }),
  ...webBaseShape,
  // PostHog's top clicks read no goal: refused rather than ignored.
  conversionGoal: notSupported("conversionGoal"),
});

export const webStatsTableQuerySchema = z.looseObject({
  kind: z.literal(WEB_STATS_TABLE_KIND, { error: (issue) => `Query kind ${shown(issue.input)} is not supported; use ${WEB_STATS_TABLE_KIND}.` }),
  ...webBaseShape,
  breakdownBy: z.enum(WEB_STATS_BREAKDOWNS, { error: (issue) => `breakdownBy ${shown(issue.input)} is not supported; use one of ${WEB_STATS_BREAKDOWNS.join(", ")}.` }),
  limit: z
    .number({ error: "limit must be a number." })
    .int("limit must be an integer.")
    .min(1, "limit must be at least 1.")
    .max(MAX_WEB_STATS_LIMIT, `limit must be at most ${MAX_WEB_STATS_LIMIT}.`)
    .nullish(),
  offset: z.number({ error: "offset must be a number." }).int("offset must be an integer.").min(0, "offset must not be negative.").max(MAX_WEB_STATS_OFFSET, `offset must be at most ${MAX_WEB_STATS_OFFSET.toLocaleString("en-US")}.`).nullish(),
  includeBounceRate: z.boolean({ error: "includeBounceRate must be a boolean." }).nullish(),
  includeScrollDepth: z.boolean().nullish(),
  includeAvgTimeOnPage: notSupported("includeAvgTimeOnPage"),
  includeHost: z.boolean({ error: "includeHost must be a boolean." }).nullish(),
  orderBy: orderBySchema,
}).superRefine((query, ctx) => {
  const field = query.orderBy?.[0];
  if (field === undefined) return;
  const issue = (message: string) => ctx.addIssue({ code: "custom", message, path: ["orderBy", 0] });
  if (query.conversionGoal) {
    if (!(WEB_GOAL_ORDERABLE_FIELDS as readonly string[]).includes(field)) issue(`orderBy field ${field} is not supported with a conversionGoal; use ${WEB_GOAL_ORDERABLE_FIELDS.join(", ")}.`);
  } else if (!(WEB_ORDERABLE_FIELDS as readonly string[]).includes(field)) {
    issue(`orderBy field ${field} is not supported: the table has no such column; use Visitors, Views or (with includeBounceRate) BounceRate.`);
  } else if (field === "BounceRate" && query.includeBounceRate !== true) {
    issue("orderBy field BounceRate needs includeBounceRate: true.");
  }
});
export type WebStatsTableQuery = z.input<typeof webStatsTableQuerySchema>;

export interface WebSpec {
  dateRange: { date_from: string | null; date_to: string | null };
  /** false; true for the period just before; or compare_to ("-1w"): the period moved back by that much. */
  compare: boolean | string;
  properties: PropertyGroup | null;
  /** The conversion goal, or null. */
  goal: WebConversionGoal | null;
}

export interface WebStatsSpec extends WebSpec {
  breakdownBy: WebStatsBreakdown;
  limit: number;
  offset: number;
  includeBounceRate: boolean;
  /** PostHog's includeHost: Page, InitialPage and ExitPage values are host and path ("shop.example/pricing"); other breakdowns ignore it. */
  includeHost: boolean;
  /** Null: visitors, then views (both descending), then the value. */
  orderBy: { field: WebOrderField | WebGoalOrderField; direction: WebOrderDirection } | null;
}

function webSpec(query: z.output<typeof webOverviewQuerySchema>, override: FiltersOverride | null): WebSpec {
  return {
    dateRange: overriddenDateRange(query.dateRange, override),
    compare: query.compareFilter?.compare === true ? (query.compareFilter.compare_to ?? true) : false,
    properties: andGroups(query.properties ?? null, override?.properties ?? null),
    goal: goalOf(query.conversionGoal),
  };
}

export function webOverviewSpec(query: z.output<typeof webOverviewQuerySchema>, override: FiltersOverride | null = null): WebSpec {
  return webSpec(query, override);
}

export function webTopClicksSpec(query: z.output<typeof webTopClicksQuerySchema>, override: FiltersOverride | null = null): WebSpec {
  return { ...webSpec({ ...query, kind: WEB_OVERVIEW_KIND, conversionGoal: null }, override), compare: false };
}

export function webStatsSpec(query: z.output<typeof webStatsTableQuerySchema>, override: FiltersOverride | null = null): WebStatsSpec {
  return {
    ...webSpec({ ...query, kind: WEB_OVERVIEW_KIND }, override),
    breakdownBy: query.breakdownBy,
    limit: query.limit ?? DEFAULT_WEB_STATS_LIMIT,
    offset: query.offset ?? 0,
    includeBounceRate: query.includeBounceRate === true,
    includeHost: query.includeHost === true,
    // The refinement has left only the fields a table can order by.
    orderBy: query.orderBy ? { field: query.orderBy[0] as WebOrderField | WebGoalOrderField, direction: query.orderBy[1] } : null,
  };
}
