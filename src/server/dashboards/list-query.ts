/** The dashboards list's query (REST query string and tRPC input): a page, searched, by tags. */
import { z } from "zod";
import { drfBoolean } from "@/server/input/drf";
import { pageQuery } from "@/server/input/page";

/** Repeatable query parameter (`?tags=a&tags=b`): one value arrives as a string. */
const repeated = z.union([z.string(), z.array(z.string())]).transform((value) => (Array.isArray(value) ? value : [value]));

/** `GET …/dashboards/`: a page, optionally searched, by tags, or the deleted ones. */
export const dashboardListQuery = pageQuery.extend({
  /** Case-insensitive text in the name or description. */
  search: z.string().max(400, "search must be at most 400 characters.").optional(),
  /** Dashboards with any of these tags. */
  tags: repeated.optional(),
  /** `true`: only soft-deleted dashboards (the "recently deleted" view); default false. */
  deleted: drfBoolean.optional(),
});
export type DashboardListQuery = z.output<typeof dashboardListQuery>;
