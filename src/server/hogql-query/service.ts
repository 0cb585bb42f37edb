/**
 * The HogQLQuery kind: the parsed query (contract.ts) run by the event store's `select`,
 * the read the events API's `select`/`where` use, so PostgreSQL and ClickHouse answer alike.
 * The answer is PostHog's HogQLQueryResponse: `columns`, `types` as [name, type] pairs,
 * rows in `results`, `hasMore`, `limit`, `offset`.
 */
import type { KindAnswer, QueryEnv, QueryKind } from "@/server/analytics/kind";
import type { EventListQuery } from "@/server/db/events";
import { checkEventFilters } from "@/server/events/service";
import { hogqlQuerySpec, type HogqlQuerySpec } from "./contract";

export const hogqlQueryKind: QueryKind<HogqlQuerySpec> = {
  kind: "HogQLQuery",
  spec: (node, override) => hogqlQuerySpec(node, override),
  // Only what {filters} stands for can be refused by the data (a pattern, a cohort): the subset has neither.
  check: (env, spec) => checkEventFilters(env.db, env.projectId, [spec.filters]),
  async compute(env: QueryEnv, spec: HogqlQuerySpec): Promise<KindAnswer> {
    const query: EventListQuery = {
      format: "json",
      limit: spec.limit,
      offset: spec.offset,
      after: null,
      before: null,
      beforeUuid: null,
      event: null,
      distinctId: null,
      personId: null,
      properties: spec.filters,
      select: spec.select,
      ...(spec.where.length > 0 ? { where: spec.where } : {}),
    };
    // One row more than asked says whether more follow.
    const page = await env.db.events.select(env.projectId, query, { limit: spec.limit + 1, offset: spec.offset, cursor: null, now: env.now });
    const rows = page.rows.slice(0, spec.limit).map((row) => row.values);
    const columns = spec.select.map((item) => item.alias ?? item.text.trim());
    return {
      results: rows,
      range: null,
      extra: {
        columns,
        types: columns.map((name, i) => [name, page.types[i]]),
        hasMore: page.rows.length > spec.limit,
        limit: spec.limit,
        offset: spec.offset,
        clickhouse: null,
        explain: null,
        metadata: null,
      },
      weight: Math.max(1, rows.length * columns.length),
    };
  },
};
