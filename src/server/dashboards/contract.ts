/**
 * Request shapes of the dashboards API, shared by REST (`/api/…/dashboards/`), tRPC and the
 * admin forms. Field names and messages are PostHog's (DRF's) so clients see the same 400s.
 * Browser-safe (the forms import it).
 */
import { z } from "zod";
import { RestrictionLevel } from "@/server/access/contract";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";
import { recordId } from "@/server/input/record-id";
import { filtersOverrideSchema, insightSchema, insightUpdateBody } from "@/server/insights/contract";
import { userBasicSchema } from "@/server/accounts/contract";
import { tileLayoutsSchema } from "./tile-layout";

/** Repeatable query parameter (`?tags=a&tags=b`): one value arrives as a string. */
const repeated = z.union([z.string(), z.array(z.string())]).transform((value) => (Array.isArray(value) ? value : [value]));

/** `GET …/dashboards/` (REST query string and tRPC input): a page, optionally searched, by tags, or the deleted ones. */
export const dashboardListQuery = pageQuery.extend({
  /** Case-insensitive text in the name or description. */
  search: z.string().max(400, "search must be at most 400 characters.").optional(),
  /** Dashboards with any of these tags. */
  tags: repeated.optional(),
  /** `true`: only soft-deleted dashboards (the "recently deleted" view); default false. */
  deleted: drfBoolean.optional(),
});
export type DashboardListQuery = z.output<typeof dashboardListQuery>;

const RESTRICTION_LEVELS: readonly number[] = Object.values(RestrictionLevel);

/** `restriction_level`: 21 or 37 (a number, or its digits as a string, as DRF's ChoiceField). */
export const restrictionLevelSchema = z
  .union([z.number(), z.string()], { error: (issue) => `"${String(issue.input)}" is not a valid choice.` })
  .transform((value, ctx) => {
    const level = Number(value);
    if (typeof value === "string" && !/^\d+$/.test(value)) {
      ctx.addIssue({ code: "custom", message: `"${value}" is not a valid choice.` });
      return z.NEVER;
    }
    if (!RESTRICTION_LEVELS.includes(level)) {
      ctx.addIssue({ code: "custom", message: `"${String(value)}" is not a valid choice.` });
      return z.NEVER;
    }
    return level;
  });

const dictionary = (what: string) =>
  z.custom<Record<string, unknown>>((value) => typeof value === "object" && value !== null && !Array.isArray(value), `${what} must be a dictionary`);

const tagList = z.array(z.string({ error: "Not a valid string." }).max(255, "Ensure this field has no more than 255 characters."), {
  error: (issue) => `Expected a list of items but got type "${issue.input === null ? "null" : typeof issue.input}".`,
});

/**
 * A dashboard's `filters` (PostHog's DashboardFilter: `date_from`, `date_to`, `properties`,
 * …): a dictionary the insights can read, checked on write so a saved dashboard never
 * carries filters that break every tile. Stored as sent.
 */
export const dashboardFiltersSchema = dictionary("Filters").superRefine((value, ctx) => {
  const result = filtersOverrideSchema.safeParse(value);
  if (!result.success) ctx.addIssue({ code: "custom", message: `Filters: ${result.error.issues[0]!.message}` });
});

/** Fields a client may write on create and update (PATCH); all optional, unknown ones ignored. */
const writableFields = {
  name: z.string({ error: "Not a valid string." }).max(400, "Ensure this field has no more than 400 characters.").nullable(),
  description: z.string({ error: "Not a valid string." }),
  pinned: drfBoolean,
  deleted: drfBoolean,
  tags: tagList,
  restriction_level: restrictionLevelSchema,
  filters: dashboardFiltersSchema,
  variables: dictionary("Variables"),
  /** With `deleted: true`: also soft-delete the insights that are on no other dashboard. */
  delete_insights: drfBoolean,
};

/** PostHog's tile colors (InsightColor); null is the default (white). */
export const TILE_COLORS = ["white", "black", "blue", "green", "purple"] as const;
export const TEXT_TILE_MAX = 4000;

export const textBodySchema = z
  .string({ error: "Not a valid string." })
  .trim()
  .min(1, "This field may not be blank.")
  .max(TEXT_TILE_MAX, `Ensure this field has no more than ${TEXT_TILE_MAX} characters.`);

/**
 * One entry of PATCH `tiles` (PostHog's DashboardTileSerializer): with `id`, changes that
 * tile of this dashboard (place, color, text, removal with `deleted: true`); without, adds
 * a text tile (`text` required). Insight tiles are added through the insights API
 * (`dashboards: [id]`), as in PostHog; an `insight` given here is ignored.
 */
export const tilePatchSchema = z.object({
  id: recordId().optional(),
  layouts: tileLayoutsSchema.optional(),
  color: z.enum(TILE_COLORS, { error: (issue) => `"${String(issue.input)}" is not a valid choice.` }).nullable().optional(),
  deleted: drfBoolean.optional(),
  text: z.object({ body: textBodySchema }, { error: "Expected a dictionary of items." }).optional(),
  filters_overrides: dictionary("Filters overrides").nullable().optional(),
});
export type TilePatch = z.output<typeof tilePatchSchema>;

const tilesField = z.array(tilePatchSchema, { error: "Expected a list of items." }).max(200, "Ensure this field has no more than 200 elements.");

export const dashboardUpdateBody = z.object({ ...writableFields, tiles: tilesField }).partial();
export type DashboardUpdateBody = z.output<typeof dashboardUpdateBody>;

export const dashboardCreateBody = z
  .object(writableFields)
  .partial()
  .extend({
    /** A built-in template's key (templates.ts); an unknown key is a 400. */
    use_template: z.string({ error: "Not a valid string." }),
    /** An existing dashboard of the project to copy (its tiles, filters, variables). */
    use_dashboard: recordId().nullable(),
    /** With `use_dashboard`: copy the insights and texts too, instead of sharing them. */
    duplicate_tiles: drfBoolean,
  })
  .partial()
  .refine((body) => !(body.use_dashboard && body.use_template), "`use_dashboard` and `use_template` cannot be used together");
export type DashboardCreateBody = z.output<typeof dashboardCreateBody>;

/** What the "Add insight" form sends: the insight's name, description and query (checked by the insights service). */
export const newInsightTileBody = insightUpdateBody
  .pick({ name: true, description: true, query: true })
  .refine((body) => body.query !== undefined && body.query !== null, { message: "This field is required.", path: ["query"] });
export type NewInsightTile = z.output<typeof newInsightTileBody>;

/**
 * tRPC `dashboards.results`: every insight tile computed; `filters`, when given, replace the
 * saved ones (the page's temporary filters, from its URL); `refresh` recomputes all.
 */
export const dashboardResultsQuery = z.object({
  filters: filtersOverrideSchema.nullish(),
  refresh: z.boolean().optional(),
  /** Only these tiles (a tile's own refresh button); all insight tiles when absent. */
  tileIds: z.array(recordId()).max(200).optional(),
});
export type DashboardResultsQuery = z.output<typeof dashboardResultsQuery>;

// What the dashboards API answers (the OpenAPI document's schemas; present.ts builds them).

const jsonObject = z.record(z.string(), z.unknown());

/** A dashboard in a list (PostHog's DashboardBasicSerializer). */
export const dashboardListItemSchema = z
  .object({
    id: z.number().int(),
    name: z.string().nullable(),
    description: z.string(),
    pinned: z.boolean(),
    created_at: z.iso.datetime(),
    created_by: userBasicSchema.nullable(),
    last_accessed_at: z.iso.datetime().nullable(),
    is_shared: z.boolean(),
    deleted: z.boolean(),
    creation_mode: z.string(),
    tags: z.array(z.string()),
    restriction_level: z.number().int().describe("21: everyone in the project can edit; 37: only collaborators can edit."),
    effective_restriction_level: z.number().int(),
    effective_privilege_level: z.number().int(),
    /** The caller's access in words (PostHog's newer field). */
    user_access_level: z.enum(["editor", "viewer"]),
    /** PostHog marks dashboards that use the old restriction levels "v1". */
    access_control_version: z.enum(["v1", "v2"]),
    last_refresh: z.iso.datetime().nullable(),
    team_id: z.number().int(),
  })
  .meta({ id: "DashboardListItem" });
export type DashboardListItem = z.infer<typeof dashboardListItemSchema>;

/** A tile's insight: PostHog nests the insight's own fields (not its result, tags or dashboards) in the tile. */
export const tileInsightSchema = insightSchema.pick({
  id: true,
  short_id: true,
  name: true,
  derived_name: true,
  description: true,
  query: true,
  filters: true,
  favorited: true,
  saved: true,
  deleted: true,
  created_at: true,
  created_by: true,
  last_modified_at: true,
  last_modified_by: true,
  last_refresh: true,
});

export const tileTextSchema = z.object({
  id: z.number().int(),
  body: z.string(),
  created_by: userBasicSchema.nullable(),
  last_modified_by: userBasicSchema.nullable(),
  last_modified_at: z.iso.datetime(),
  /** The project's id. */
  team: z.number().int(),
});

export const dashboardTileSchema = z
  .object({
    id: z.number().int(),
    insight: tileInsightSchema.nullable(),
    text: tileTextSchema.nullable(),
    layouts: z.unknown(),
    color: z.string().nullable(),
    filters_overrides: z.unknown(),
    /** Position after sorting by the small layout's y, then x. */
    order: z.number().int(),
    last_refresh: z.iso.datetime().nullable(),
    is_cached: z.boolean(),
  })
  .meta({ id: "DashboardTile" });

/** One dashboard with its tiles (PostHog's DashboardSerializer). */
export const dashboardSchema = dashboardListItemSchema
  .extend({
    /**
     * How the dashboard was seeded or deleted, as the request said: PostHog keeps these
     * write-only; the reference lists them in single-dashboard responses. `""`, null and false when unset.
     */
    use_template: z.string(),
    use_dashboard: z.number().int().nullable(),
    delete_insights: z.boolean(),
    filters: jsonObject,
    variables: jsonObject,
    breakdown_colors: z.unknown(),
    data_color_theme_id: z.number().int().nullable(),
    /** The stored filters and variables, or null when empty (PostHog's persisted_*). */
    persisted_filters: jsonObject.nullable(),
    persisted_variables: jsonObject.nullable(),
    tiles: z.array(dashboardTileSchema),
  })
  .meta({ id: "Dashboard" });
export type DashboardResource = z.infer<typeof dashboardSchema>;
