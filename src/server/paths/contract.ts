/**
 * PostHog's PathsQuery (schema-general.ts `PathsQuery`, `PathsFilter`), checked, and
 * reduced to the answer-deciding `PathsSpec` (the cache key and the computation are made
 * from it).
 */
import { z } from "zod";
import type { PropertyGroup } from "@/server/properties/contract";
import { compiledRegex, regexSyntaxError } from "@/server/properties/regex";
import { andGroups, dateRangeSchema, notSupported, overriddenDateRange, propertiesField, shown, type FiltersOverride } from "@/server/analytics/nodes";

/** Which events make up paths (PostHog's PathType, without `hogql`: Burrow runs no HogQL expressions here). */
export const PATH_TYPES = ["$pageview", "$screen", "custom_event"] as const;
export type PathType = (typeof PATH_TYPES)[number];

export const DEFAULT_STEP_LIMIT = 5;
/** Each step is one more edge column; PostHog's UI offers 2–20. */
export const MAX_STEP_LIMIT = 20;
export const DEFAULT_EDGE_LIMIT = 50;
/** The answer is a Sankey chart: past a few thousand edges it is unreadable and only costs memory. */
export const MAX_EDGE_LIMIT = 5000;
/** Path cleaning rules and groupings are user regexes run on every path item: a handful is plenty. */
export const MAX_PATH_RULES = 50;
const MAX_ITEM_TEXT = 2000;

/** A path grouping (`/product/*`) as the RE2 pattern PostHog makes of it: literal text, each `*` any run of characters, found anywhere. */
export function groupingPattern(grouping: string): string {
  return grouping
    .split("*")
    .map((part) => part.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&"))
    .join(".*");
}

const itemText = (name: string) => z.string({ error: `${name} must be a string.` }).max(MAX_ITEM_TEXT, `${name} must be at most ${MAX_ITEM_TEXT} characters.`);

const cleaningFilterSchema = z.looseObject({
  regex: z
    .string({ error: "regex must be a string." })
    .max(MAX_ITEM_TEXT)
    .superRefine((pattern, ctx) => {
      const error = regexSyntaxError(pattern);
      if (error) ctx.addIssue({ code: "custom", message: `regex is not a valid RE2 regular expression: ${error}.` });
    })
    .nullish(),
  alias: z.string({ error: "alias must be a string." }).max(MAX_ITEM_TEXT).nullish(),
});

const positiveInt = (name: string, max: number) =>
  z
    .number({ error: `${name} must be an integer.` })
    .int(`${name} must be an integer.`)
    .min(1, `${name} must be at least 1.`)
    .max(max, `${name} must be at most ${max}.`);

const weight = (name: string) => z.number({ error: `${name} must be an integer.` }).int(`${name} must be an integer.`).min(0, `${name} must not be negative.`).max(2 ** 31 - 1);

export const pathsFilterSchema = z.looseObject({
  includeEventTypes: z
    .array(
      z.enum(PATH_TYPES, {
        error: (issue) => `includeEventTypes: ${shown(issue.input)} is not supported; use ${PATH_TYPES.join(", ")}.`,
      }),
      { error: "includeEventTypes must be a list." },
    )
    .max(PATH_TYPES.length * 2)
    .nullish(),
  excludeEvents: z.array(itemText("excludeEvents"), { error: "excludeEvents must be a list of strings." }).max(200, "At most 200 excludeEvents.").nullish(),
  startPoint: itemText("startPoint").nullish(),
  endPoint: itemText("endPoint").nullish(),
  stepLimit: positiveInt("stepLimit", MAX_STEP_LIMIT).min(2, "stepLimit must be at least 2.").nullish(),
  edgeLimit: positiveInt("edgeLimit", MAX_EDGE_LIMIT).nullish(),
  minEdgeWeight: weight("minEdgeWeight").nullish(),
  maxEdgeWeight: weight("maxEdgeWeight").nullish(),
  pathGroupings: z
    .array(
      itemText("pathGroupings").superRefine((grouping, ctx) => {
        if (!compiledRegex(groupingPattern(grouping))) ctx.addIssue({ code: "custom", message: "This path grouping is too long to match." });
      }),
      { error: "pathGroupings must be a list of strings." },
    )
    .max(MAX_PATH_RULES, `At most ${MAX_PATH_RULES} pathGroupings.`)
    .nullish(),
  /** The project's own path cleaning rules: Burrow's projects have none, so this cleans nothing (as PostHog with none defined). */
  pathReplacements: z.boolean({ error: "pathReplacements must be true or false." }).nullish(),
  localPathCleaningFilters: z
    .array(cleaningFilterSchema, { error: "localPathCleaningFilters must be a list of {regex, alias}." })
    .max(MAX_PATH_RULES, `At most ${MAX_PATH_RULES} localPathCleaningFilters.`)
    .nullish(),
  pathsHogQLExpression: notSupported("pathsHogQLExpression"),
  showFullUrls: z.boolean().nullish(),
  // Which point's actors an actors query asks for (PostHog: "relevant only within actors query").
  pathStartKey: itemText("pathStartKey").nullish(),
  pathEndKey: itemText("pathEndKey").nullish(),
  pathDropoffKey: itemText("pathDropoffKey").nullish(),
});

export const pathsQuerySchema = z.looseObject({
  kind: z.literal("PathsQuery", { error: (issue) => `Query kind ${shown(issue.input)} is not supported; use PathsQuery.` }),
  dateRange: dateRangeSchema.nullish(),
  properties: propertiesField,
  pathsFilter: pathsFilterSchema.nullish(),
  funnelPathsFilter: notSupported("funnelPathsFilter"),
  aggregation_group_type_index: notSupported("aggregation_group_type_index"),
  samplingFactor: z.unknown().refine((value) => value === undefined || value === null || value === 1, "samplingFactor is not supported yet.").optional(),
  /** Burrow has no test-account filters, so this filters nothing (as PostHog with none defined). */
  filterTestAccounts: z.boolean().nullish(),
});
export type PathsQueryInput = z.output<typeof pathsQuerySchema>;

/** Which edge's (or drop-off's) actors to list: PostHog's `pathStartKey`, `pathEndKey`, `pathDropoffKey`. */
export interface PathsActorKeys {
  start: string | null;
  end: string | null;
  dropoff: string | null;
}

export const pathsActorsSelectorSchema = z.looseObject({
  pathStartKey: itemText("pathStartKey").nullish(),
  pathEndKey: itemText("pathEndKey").nullish(),
  pathDropoffKey: itemText("pathDropoffKey").nullish(),
});

/** A paths query reduced to what decides its answer. */
export interface PathsSpec {
  dateRange: { date_from: string | null; date_to: string | null };
  properties: PropertyGroup | null;
  /** Empty: every event. */
  includeEventTypes: PathType[];
  excludeEvents: string[];
  /** Without one trailing slash, as path items are. */
  startPoint: string | null;
  endPoint: string | null;
  stepLimit: number;
  edgeLimit: number;
  minEdgeWeight: number | null;
  maxEdgeWeight: number | null;
  pathGroupings: string[];
  /** Applied in order, each to the previous one's output (`alias` may refer to groups as `\1`). */
  pathCleaning: { regex: string; alias: string }[];
  /** Set only by an actors query's source; computing results ignores them. */
  actorKeys: PathsActorKeys | null;
}

/** `https://x.test/` reads as `https://x.test`, as path items do; `/` stays. */
const withoutTrailingSlash = (point: string | null | undefined) => (point && point.length > 1 && point.endsWith("/") ? point.slice(0, -1) : (point ?? null));

export function pathsSpec(query: PathsQueryInput, override: FiltersOverride | null = null): PathsSpec {
  const filter = query.pathsFilter ?? {};
  const keys: PathsActorKeys = { start: filter.pathStartKey ?? null, end: filter.pathEndKey ?? null, dropoff: filter.pathDropoffKey ?? null };
  return {
    dateRange: overriddenDateRange(query.dateRange, override),
    properties: andGroups(query.properties ?? null, override?.properties ?? null),
    includeEventTypes: PATH_TYPES.filter((type) => filter.includeEventTypes?.includes(type)),
    excludeEvents: [...new Set(filter.excludeEvents ?? [])],
    startPoint: withoutTrailingSlash(filter.startPoint) || null,
    endPoint: withoutTrailingSlash(filter.endPoint) || null,
    stepLimit: filter.stepLimit ?? DEFAULT_STEP_LIMIT,
    edgeLimit: filter.edgeLimit ?? DEFAULT_EDGE_LIMIT,
    // PostHog applies either only when set to a positive number.
    minEdgeWeight: filter.minEdgeWeight || null,
    maxEdgeWeight: filter.maxEdgeWeight || null,
    pathGroupings: filter.pathGroupings ?? [],
    // A rule without a pattern changes nothing; one without an alias removes what it matches.
    pathCleaning: (filter.localPathCleaningFilters ?? []).filter((rule) => rule.regex).map((rule) => ({ regex: rule.regex!, alias: rule.alias ?? "" })),
    actorKeys: keys.start || keys.end || keys.dropoff ? keys : null,
  };
}
