import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/http/trpc/root";

type Outputs = inferRouterOutputs<AppRouter>["transformations"];

/** A transformation config as the browser receives it over tRPC (JSON). */
export type ConfigData = Outputs["list"][number];
export type PluginData = Outputs["plugins"][number];
export type ChainRunData = Outputs["testChain"];
export type EventViewData = ChainRunData["before"];
export type ChainStepData = ChainRunData["steps"][number];
