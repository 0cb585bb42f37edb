/**
 * What an insight kind (trends, funnels, retention, …) gives the query API: the query
 * API (query/service.ts) parses the request, caches, wraps the envelope and pages actors;
 * each kind only turns its node into a spec and a spec into results. A new kind is a
 * domain folder exporting one `QueryKind`, registered in query/kinds.ts.
 */
import type { ZodType } from "zod";
import type { Database } from "@/server/db/client";
import { AppError } from "@/server/errors";
import type { FiltersOverride } from "./nodes";

/** Where and when a query runs. */
export interface QueryEnv {
  db: Database;
  projectId: number;
  /** The project's time zone (an IANA name): buckets and dates are read in it. */
  zone: string;
  /** The time relative dates count back from. */
  now: Date;
}

export interface KindAnswer {
  /** PostHog's `results` for the kind. */
  results: unknown;
  /** The range the results cover (instants), for `resolved_date_range`; null when the kind has none. */
  range: { from: Date; to: Date } | null;
  /** Fields the kind's response carries beside `results` (Trends' `hasMore`, Funnels' `isUdf`, HogQL's `columns`/`types`). */
  extra?: Record<string, unknown>;
  /** The answer's size for the cache (about one per data point). */
  weight: number;
}

/** An actor of an insight: a person's uuid, or for events stored without a person, their distinct id (see ANONYMOUS_ACTOR). */
export type ActorKey = string;

export { ANONYMOUS_ACTOR } from "@/server/db/events/actor-events/query";

export interface QueryKind<Spec> {
  /** PostHog's `kind`, e.g. "FunnelsQuery". */
  kind: string;
  /**
   * The node (already known to be this kind) checked and reduced to the answer-deciding
   * spec, with a dashboard's filters laid over it. Throws AppError `invalid_input` naming
   * the field.
   */
  spec(node: unknown, override: FiltersOverride | null): Spec;
  /** What only the data can refuse, checked before a query is stored or run: regular expressions, cohorts. */
  check(env: QueryEnv, spec: Spec): Promise<void>;
  compute(env: QueryEnv, spec: Spec): Promise<KindAnswer>;
  /**
   * What else the answer depends on besides the node, for the cache key: e.g. an experiment's
   * last change (its dates, variants and exposure settings are not in the node).
   */
  cacheVersion?(env: QueryEnv, spec: Spec): Promise<string>;
  /**
   * The actors behind one point of the answer: `selector` is the rest of PostHog's
   * InsightActorsQuery / FunnelsActorsQuery (`day`, `status`, `interval`, `series`,
   * `breakdown`, `funnelStep`, …), checked by the kind. In the order to show them.
   */
  actors?(env: QueryEnv, spec: Spec, selector: Record<string, unknown>): Promise<ActorKey[]>;
}

/** A node field a kind refuses: a 400 on `query`, which a zod schema around the node reports at `path` instead. */
export class QueryNodeError extends AppError {
  constructor(
    readonly issue: string,
    readonly path: readonly PropertyKey[],
    /** A rule of the kind between valid fields (a funnel's step range), not a malformed field: PostHog's runner ValidationError rather than a parse error. */
    readonly rule = false,
  ) {
    super("invalid_input", `The query is not supported: ${path.length > 0 ? `${path.map(String).join(".")}: ` : ""}${issue}`, "query");
  }
}

/** A node parsed by `schema`, or a QueryNodeError naming the field of zod's first issue. */
export function parseNode<T>(schema: ZodType<T>, node: unknown): T {
  const result = schema.safeParse(node);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new QueryNodeError(issue.message, issue.path, isRuleIssue(issue));
}

/** Marks a zod issue as a kind's rule (see QueryNodeError.rule): `ctx.addIssue({…, params: RULE})`. */
export const RULE = { rule: true } as const;

function isRuleIssue(issue: { code: string; params?: unknown }): boolean {
  return issue.code === "custom" && (issue.params as { rule?: boolean } | undefined)?.rule === true;
}
