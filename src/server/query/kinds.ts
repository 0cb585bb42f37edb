/**
 * The insight kinds the query API runs, by PostHog's `kind`. A new kind is a domain folder
 * whose service exports a `QueryKind`, added here.
 */
import type { QueryKind } from "@/server/analytics/kind";
import { trendsKind } from "@/server/trends/service";
import { retentionKind } from "@/server/retention/service";
import { stickinessKind } from "@/server/stickiness/service";
import { lifecycleKind } from "@/server/lifecycle/service";

// Each kind checks its own spec type; the registry holds them alike.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyKind = QueryKind<any>;

export const QUERY_KINDS: ReadonlyMap<string, AnyKind> = new Map<string, AnyKind>([trendsKind, retentionKind, stickinessKind, lifecycleKind].map((kind) => [kind.kind, kind]));
