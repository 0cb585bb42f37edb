/**
 * The events list on a project with 1,000,000 events, on PostgreSQL, through the real
 * route handler (auth, parsing, SQL, JSON): the first page unfiltered, a filter by event
 * name, and a property filter. Each is timed over repeated runs after one warm-up.
 *
 *   npm run bench:events [-- --events 1000000 --runs 20]
 *
 * The seed writes through the events store (the path ingestion uses) into a throwaway
 * database on TEST_POSTGRES_URL's server, and drops it at the end.
 */
import { parseArgs } from "node:util";
import { GET as listEvents } from "@/app/api/projects/[project_id]/events/route";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import { openDatabase } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase } from "@/server/db/testing";
import { insertEvents, type StoredEventInput } from "@/server/events/store";
import { v7 as uuidv7 } from "uuid";

const { values } = parseArgs({ options: { events: { type: "string", default: "1000000" }, runs: { type: "string", default: "20" } } });
const EVENTS = Number(values.events);
const RUNS = Number(values.runs);
const NAMES = ["$pageview", "$pageleave", "$autocapture", "signed_up", "purchase", "$identify", "clicked_cta", "viewed_pricing"];
const BROWSERS = ["Chrome", "Firefox", "Safari", "Edge"];

const database = await createEmptyPostgresDatabase();
const db = await openDatabase({ kind: "postgres", url: database.url });
try {
  await migrate(db.sql);
  registerDb(db);
  const boot = await bootstrap(db.prisma, { email: "bench@example.com", password: "bench-password" });
  const projectId = boot.project_id;

  const seedStarted = performance.now();
  const start = Date.now() - 90 * 24 * 3600 * 1000;
  const CHUNK = 10_000;
  for (let done = 0; done < EVENTS; done += CHUNK) {
    const rows: StoredEventInput[] = [];
    for (let i = done; i < Math.min(EVENTS, done + CHUNK); i++) {
      rows.push({
        uuid: uuidv7(),
        projectId,
        event: NAMES[i % NAMES.length]!,
        distinctId: `user-${i % 50_000}`,
        properties: { $browser: BROWSERS[i % BROWSERS.length], $current_url: `https://example.com/p/${i % 500}`, plan: i % 10 === 0 ? "enterprise" : "free", amount: i % 1000 },
        timestamp: new Date(start + Math.floor((i / EVENTS) * 90 * 24 * 3600 * 1000)),
      });
    }
    await insertEvents(db.sql, rows);
  }
  await db.sql.exec("ANALYZE events");
  console.log(`seeded ${EVENTS} events in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  async function time(label: string, query: string) {
    const call = async () => {
      const response = await listEvents(
        new Request(`http://localhost/api/projects/${projectId}/events/?${query}`, { headers: { authorization: `Bearer ${boot.personal_api_key}` } }),
        { params: Promise.resolve({ project_id: String(projectId) }) },
      );
      if (response.status !== 200) throw new Error(`${label}: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { results: unknown[] }).results.length;
    };
    const rows = await call();
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await call();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const p50 = times[Math.floor(times.length / 2)]!;
    const max = times.at(-1)!;
    console.log(`  ${label.padEnd(44)} p50 ${p50.toFixed(1).padStart(6)} ms   max ${max.toFixed(1).padStart(6)} ms   ${rows} rows   ${max < 100 ? "under 100 ms" : "OVER 100 ms"}`);
  }

  console.log(`\nPostgreSQL, ${EVENTS} events, ${RUNS} runs each (after one warm-up), page size 100:`);
  await time("first page, unfiltered", "");
  await time("event = purchase", "event=purchase");
  await time("property plan = enterprise", `properties=${encodeURIComponent(JSON.stringify([{ key: "plan", value: "enterprise", operator: "exact", type: "event" }]))}`);
  await time("property $browser icontains saf, last 7 days", `after=-7d&properties=${encodeURIComponent(JSON.stringify([{ key: "$browser", value: "saf", operator: "icontains", type: "event" }]))}`);
} finally {
  await closeDb();
  await database.drop();
}
