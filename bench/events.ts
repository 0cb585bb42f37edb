/**
 * The events list on a project with 1,000,000 events, on PostgreSQL, through the real
 * route handler (auth, parsing, SQL, JSON): the first page unfiltered, a filter by event
 * name, and a property filter. Each is timed over repeated runs after one warm-up.
 *
 *   npm run bench:events [-- --events 1000000 --runs 20]
 *
 * The seed (bench/lib/seed-events.ts) writes through the events store into a throwaway
 * database on TEST_POSTGRES_URL's server, and drops it at the end.
 */
import { parseArgs } from "node:util";
import { seedEvents, timeRuns } from "./lib/seed-events";
import { restRoute } from "@/test-support/rest-routes";

const { GET: listEvents } = restRoute("projects", "events");

const { values } = parseArgs({ options: { events: { type: "string", default: "1000000" }, runs: { type: "string", default: "20" } } });
const EVENTS = Number(values.events);
const RUNS = Number(values.runs);

const seeded = await seedEvents(EVENTS);
try {
  const { projectId, personalApiKey } = seeded;

  async function time(label: string, query: string) {
    let rows = 0;
    const call = async () => {
      const response = await listEvents(
        new Request(`http://localhost/api/projects/${projectId}/events/?${query}`, { headers: { authorization: `Bearer ${personalApiKey}` } }),
        { params: Promise.resolve({ project_id: String(projectId) }) },
      );
      if (response.status !== 200) throw new Error(`${label}: ${response.status} ${await response.text()}`);
      rows = ((await response.json()) as { results: unknown[] }).results.length;
    };
    const { p50, max } = await timeRuns(RUNS, call);
    console.log(`  ${label.padEnd(44)} p50 ${p50.toFixed(1).padStart(6)} ms   max ${max.toFixed(1).padStart(6)} ms   ${rows} rows   ${max < 100 ? "under 100 ms" : "OVER 100 ms"}`);
  }

  console.log(`\nPostgreSQL, ${EVENTS} events, ${RUNS} runs each (after one warm-up), page size 100:`);
  await time("first page, unfiltered", "");
  await time("event = purchase", "event=purchase");
  await time("property plan = enterprise", `properties=${encodeURIComponent(JSON.stringify([{ key: "plan", value: "enterprise", operator: "exact", type: "event" }]))}`);
  await time("property $browser icontains saf, last 7 days", `after=-7d&properties=${encodeURIComponent(JSON.stringify([{ key: "$browser", value: "saf", operator: "icontains", type: "event" }]))}`);
} finally {
  await seeded.close();
}
