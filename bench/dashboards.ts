/**
 * The dashboards list on a project with 10,000 dashboards, on PostgreSQL, through the real
 * route handler (auth, parsing, SQL, JSON): the first page (100, pinned first then by name),
 * a deep page, a search and a tag filter, each timed over repeated runs after one warm-up.
 * The target is the first page under 50 ms.
 *
 *   npm run bench:dashboards [-- --dashboards 10000 --runs 30]
 *
 * Dashboards are seeded with plain SQL into a throwaway database on TEST_POSTGRES_URL's
 * server (a tenth pinned, a third tagged, some restricted with a collaborator row, some
 * shared), and the database is dropped at the end.
 *
 * `--measure tiles` instead times one dashboard of twelve insight tiles over 1,000,000
 * events (bench/lib/dashboard-tiles.ts): its one-round-trip results call, cold and warm.
 * Target: warm p50 under 2 s.
 *
 *   npm run bench:dashboards -- --measure tiles [--events 1000000 --persons 100000 --runs 5]
 */
import { parseArgs } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import { openDatabase } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { seedProductEvents, TILES, timeDashboardTiles, WARM_TARGET_MS } from "./lib/dashboard-tiles";

const { GET: listDashboards } = restRoute("environments", "dashboards");

const { values } = parseArgs({
  options: {
    measure: { type: "string", default: "list" },
    dashboards: { type: "string", default: "10000" },
    runs: { type: "string" },
    events: { type: "string", default: "1000000" },
    persons: { type: "string", default: "100000" },
  },
});
const DASHBOARDS = Number(values.dashboards);
const RUNS = Number(values.runs ?? (values.measure === "tiles" ? "5" : "30"));
const TARGET_MS = 50;
if (values.measure !== "list" && values.measure !== "tiles") throw new Error("--measure is list or tiles");

/** `--measure tiles`: the twelve-tile dashboard on a seeded product project. */
async function measureTiles(db: Awaited<ReturnType<typeof openDatabase>>, projectId: number, user: { id: number; uuid: string; email: string }) {
  const events = Number(values.events);
  const persons = Number(values.persons);
  const seedStarted = performance.now();
  await seedProductEvents(db, projectId, events, persons);
  console.log(`seeded ${events.toLocaleString("en")} events from ${persons.toLocaleString("en")} persons over 90 days in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
  const figures = await timeDashboardTiles(db, user, projectId, RUNS);
  console.log(`\nPostgreSQL, one dashboard of ${TILES.length} insight tiles (${TILES.map((tile) => tile.name).join(", ")}),`);
  console.log(`tRPC dashboards.results (one round trip), ${RUNS} runs: ${figures.states}`);
  console.log(`  first tile of the cold call   p50 ${figures.firstTile.p50.toFixed(0).padStart(6)} ms   max ${figures.firstTile.max.toFixed(0).padStart(6)} ms`);
  console.log(`  cold (query cache emptied)   p50 ${figures.cold.p50.toFixed(0).padStart(6)} ms   max ${figures.cold.max.toFixed(0).padStart(6)} ms`);
  console.log(`  warm (every tile cached)     p50 ${figures.warm.p50.toFixed(0).padStart(6)} ms   max ${figures.warm.max.toFixed(0).padStart(6)} ms`);
  console.log(`\nwarm p50 ${figures.warm.p50.toFixed(0)} ms: ${figures.warm.p50 < WARM_TARGET_MS ? "meets" : "MISSES"} the ${WARM_TARGET_MS} ms target`);
}

const database = await createEmptyPostgresDatabase();
const db = await openDatabase({ kind: "postgres", url: database.url });
try {
  await migrate(db.sql);
  registerDb(db);
  const boot = await bootstrap(db.prisma, { email: "bench@example.com", password: "bench-password" });
  const projectId = boot.project_id;
  const userId = boot.user.id;
  if (values.measure === "tiles") {
    await measureTiles(db, projectId, boot.user);
  } else {
    const seedStarted = performance.now();
    await db.sql.query(
      `INSERT INTO dashboards (project_id, name, description, pinned, restriction_level, created_by_id, updated_at)
       SELECT $1, 'Dashboard ' || lpad(i::text, 6, '0') || CASE WHEN i % 7 = 0 THEN ' revenue' ELSE '' END,
              'About dashboard ' || i, i % 10 = 0, CASE WHEN i % 20 = 0 THEN 37 ELSE 21 END, $2, now()
         FROM generate_series(1, $3::int) AS i`,
      [projectId, userId, DASHBOARDS],
    );
    await db.sql.query(`INSERT INTO tags (id, project_id, name) SELECT gen_random_uuid(), $1, 'tag-' || t FROM generate_series(1, 20) AS t`, [projectId]);
    await db.sql.query(
      `INSERT INTO tagged_items (id, tag_id, dashboard_id)
       SELECT gen_random_uuid(), t.id, d.id FROM dashboards d JOIN tags t ON t.project_id = d.project_id AND t.name = 'tag-' || (d.id % 20 + 1)
        WHERE d.project_id = $1 AND d.id % 3 = 0`,
      [projectId],
    );
    await db.sql.query(
      `INSERT INTO dashboard_collaborators (id, dashboard_id, user_id, level, updated_at)
       SELECT gen_random_uuid(), id, $2, 37, now() FROM dashboards WHERE project_id = $1 AND restriction_level = 37`,
      [projectId, userId],
    );
    await db.sql.query(
      `INSERT INTO sharing_configurations (project_id, dashboard_id, enabled, access_token)
       SELECT $1, id, true, 'bench-token-' || id FROM dashboards WHERE project_id = $1 AND id % 5 = 0`,
      [projectId],
    );
    await db.sql.exec("ANALYZE");
    console.log(`seeded ${DASHBOARDS} dashboards in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

    async function time(label: string, query: string) {
      const call = async () => {
        const response = await listDashboards(
          new Request(`http://localhost/api/environments/${projectId}/dashboards/${query}`, { headers: { authorization: `Bearer ${boot.personal_api_key}` } }),
          { params: Promise.resolve({ project_id: String(projectId) }) },
        );
        if (response.status !== 200) throw new Error(`${label}: ${response.status} ${await response.text()}`);
        const body = (await response.json()) as { count: number; results: unknown[] };
        return body;
      };
      const first = await call();
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        await call();
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const p50 = times[Math.floor(times.length / 2)]!;
      const p95 = times[Math.min(times.length - 1, Math.floor(times.length * 0.95))]!;
      const max = times.at(-1)!;
      const verdict = p95 < TARGET_MS ? `under ${TARGET_MS} ms` : `OVER ${TARGET_MS} ms`;
      console.log(
        `  ${label.padEnd(34)} p50 ${p50.toFixed(1).padStart(6)} ms   p95 ${p95.toFixed(1).padStart(6)} ms   max ${max.toFixed(1).padStart(6)} ms   ${String(first.results.length).padStart(3)} of ${String(first.count).padStart(5)}   ${verdict}`,
      );
      return p95;
    }

    console.log(`\nPostgreSQL, ${DASHBOARDS} dashboards in one project, ${RUNS} runs each (after one warm-up), the real route handler:`);
    const firstPage = await time("first page (100)", "");
    await time("page at offset 9,000", "?offset=9000");
    await time("search 'revenue'", "?search=revenue");
    await time("tag filter (tag-3)", "?tags=tag-3");
    console.log(`\nfirst page p95 ${firstPage.toFixed(1)} ms: ${firstPage < TARGET_MS ? "meets" : "MISSES"} the ${TARGET_MS} ms target`);
  }
} finally {
  await closeDb();
  await database.drop();
}
