/**
 * The kinds the query API runs, by PostHog's `kind`. A new insight kind is a domain folder
 * whose service exports a `QueryKind`, added to INSIGHT_KINDS here; the actors of any
 * insight (ActorsQuery and friends, query/actors.ts) come with it.
 */
import type { QueryKind } from "@/server/analytics/kind";
import { experimentQueryKind } from "@/server/experiments/service";
import { funnelsKind } from "@/server/funnels/service";
import { hogqlQueryKind } from "@/server/hogql-query/service";
import { lifecycleKind } from "@/server/lifecycle/service";
import { pathsKind } from "@/server/paths/service";
import { retentionKind } from "@/server/retention/service";
import { stickinessKind } from "@/server/stickiness/service";
import { trendsKind } from "@/server/trends/service";
import { webOverviewKind, webStatsTableKind, webTopClicksKind } from "@/server/web-analytics/service";
import { actorsKinds } from "./actors";

// Each kind checks its own spec type; the registry holds them alike.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKind = QueryKind<any>;

const INSIGHT_KINDS: AnyKind[] = [trendsKind, funnelsKind, retentionKind, stickinessKind, lifecycleKind, pathsKind, hogqlQueryKind, webOverviewKind, webStatsTableKind, webTopClicksKind, experimentQueryKind];

const kinds = new Map<string, AnyKind>(INSIGHT_KINDS.map((kind) => [kind.kind, kind]));
for (const kind of actorsKinds((name) => kinds.get(name))) kinds.set(kind.kind, kind);

export const QUERY_KINDS: ReadonlyMap<string, AnyKind> = kinds;

/** Adds a kind (tests: a kind of their own exercises the query API without another domain's internals). */
export function registerQueryKind(kind: AnyKind): void {
  kinds.set(kind.kind, kind);
}
