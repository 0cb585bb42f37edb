import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/http/trpc/root";

type Outputs = inferRouterOutputs<AppRouter>["dashboards"];

/** A dashboard as the browser receives it over tRPC (JSON: dates are strings, free-form fields unknown). */
export type DashboardData = Outputs["get"];
export type DashboardListItemData = Outputs["list"]["results"][number];
/** One insight tile's result from `dashboards.results` (a stream of them, one per tile as it is computed). */
export type TileResultData = Outputs["results"] extends AsyncIterable<infer Result> ? Result : never;
