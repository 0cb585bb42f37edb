/**
 * Issue 32's quadratic breakdown at scale: a trend of page views broken down by `$session_id`
 * (every event its own value) over N events of the last 5 days (default 1,000,000), on
 * PostgreSQL, through the real query route with a personal API key, while `/_health` and a
 * plain query on the main connections are probed every 50 ms (src/test-support/stall.ts).
 * First without planner statistics (autovacuum and Burrow's own ANALYZE held off): the
 * statement must be cut by the analytical budget (or finish within it); then after ANALYZE:
 * under a second. src/server/query/stalls.int.test.ts keeps the 8,000-event version.
 *
 *   npm run bench:breakdown-stall [-- --events 1000000 --budget-ms 10000]
 *
 * Seeds into a throwaway database on TEST_POSTGRES_URL's server, dropped at the end.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { registerDb } from "@/server/db";
import { openDatabase } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import type { StoredEventInput } from "@/server/db/events";
import { clearQueryCache } from "@/server/query/service";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { duringStall } from "@/test-support/stall";

const { values } = parseArgs({ options: { events: { type: "string", default: "1000000" }, "budget-ms": { type: "string", default: "10000" } } });
const EVENTS = Number(values.events);
const BUDGET_MS = Number(values["budget-ms"]);
process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
process.env.BURROW_QUERY_TIMEOUT_MS = String(BUDGET_MS);

const database = await createEmptyPostgresDatabase();
const db = await openDatabase({ kind: "postgres", url: database.url });
try {
  await migrate(db.sql);
  registerDb(db);
  // No statistics until the second run: Burrow's schedule and PostgreSQL's autovacuum held off.
  await db.statistics.close();
  await db.sql.exec("ALTER TABLE events SET (autovacuum_enabled = false)");
  const owner = await bootstrap(db.prisma, { email: "stall-bench@example.com", password: "bench-password" });
  const projectId = owner.project_id;
  const now = Date.now();
  const seeded = performance.now();
  for (let done = 0; done < EVENTS; done += 10_000) {
    const rows: StoredEventInput[] = [];
    for (let i = done; i < Math.min(EVENTS, done + 10_000); i++) {
      rows.push({
        uuid: randomUUID(),
        projectId,
        event: "$pageview",
        distinctId: `visitor-${i % 70_000}`,
        properties: { $session_id: `session-${i}`, $current_url: `https://example.com/${i % 40}` },
        timestamp: new Date(now - (i % 4) * 86_400_000 - 60_000 - (i % 3_600_000)),
      });
    }
    await db.events.insert(rows);
  }
  console.log(`seeded ${EVENTS} page views (each its own $session_id) in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  const [stats] = await db.sql.query<{ analyzed: string | null }>(`SELECT last_analyze::text AS analyzed FROM pg_stat_user_tables WHERE relname = 'events'`);

  const handler = restRoute("projects", "query").POST as (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
  const query = async () => {
    const response = await handler(
      new Request(`http://bench.test/api/projects/${projectId}/query/`, {
        method: "POST",
        headers: { authorization: `Bearer ${owner.personal_api_key}`, "content-type": "application/json" },
        body: JSON.stringify({
          query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "-5d" }, breakdownFilter: { breakdown: "$session_id", breakdown_type: "event" } },
          refresh: true,
        }),
      }),
      { params: Promise.resolve({ project_id: String(projectId) }) },
    );
    const body = (await response.json()) as { code?: string };
    return { status: response.status, code: body.code ?? null };
  };

  for (const analyzed of [false, true]) {
    if (analyzed) {
      const started = performance.now();
      await db.sql.exec("ANALYZE events");
      console.log(`ANALYZE events: ${Math.round(performance.now() - started)} ms`);
    } else console.log(`events' last ANALYZE: ${stats?.analyzed ?? "never"}`);
    for (let run = 0; run < 3; run++) {
      clearQueryCache(db);
      const stall = await duringStall(query);
      const answer = stall.outcome.ok ? stall.outcome.value : { status: "threw", code: String(stall.outcome.error) };
      console.log(
        `${analyzed ? "with statistics   " : "without statistics"} run ${run + 1}: ${answer.status}${answer.code ? ` ${answer.code}` : ""} in ${Math.round(stall.ms)} ms; /_health at most ${Math.round(stall.healthMs)} ms, main-connection query at most ${Math.round(stall.queryMs)} ms, RSS +${Math.round(stall.rssMb)} MB`,
      );
    }
  }
} finally {
  await db.close();
  await database.drop();
}
