/**
 * What keeping the definitions costs ingestion (src/server/definitions/upkeep.ts): the CPU
 * `observeEvents` spends per committed event, in steady state (names already seen) and on
 * first sight, for posthog-js-sized pageviews (~40 properties, a $set on every tenth); and
 * what one flush of the gathered definitions and counters costs the embedded database.
 *
 *   npm run bench:definitions [-- --events 100000]
 */
import { parseArgs } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { createTestDatabase } from "@/test-support/db";
import { DefinitionsUpkeep, type ObservedEvent } from "@/server/definitions/service";

const { values } = parseArgs({ options: { events: { type: "string", default: "100000" } } });
const COUNT = Number(values.events);

const KEYS = [
  "$os", "$os_version", "$browser", "$browser_version", "$device_type", "$current_url", "$host", "$pathname", "$raw_user_agent",
  "$screen_height", "$screen_width", "$viewport_height", "$viewport_width", "$lib", "$lib_version", "$insert_id", "$time",
  "distinct_id", "$device_id", "$user_id", "$initial_referrer", "$initial_referring_domain", "$referrer", "$referring_domain",
  "$session_id", "$window_id", "$pageview_id", "$is_identified", "$process_person_profile", "token", "$configured_session_timeout_ms",
  "$lib_rate_limit_remaining_tokens", "$sent_at", "$timezone", "$timezone_offset", "$browser_language", "$browser_language_prefix",
  "$active_feature_flags", "utm_source", "plan",
];

function events(projectId: number, count: number, names: number): ObservedEvent[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const properties: Record<string, unknown> = {};
    for (const [k, key] of KEYS.entries()) properties[key] = k % 3 === 0 ? i : `value-${i % 97}`;
    if (i % 10 === 0) properties.$set = { email: `u${i}@x.test`, plan: "pro" };
    return { projectId, event: i % 7 === 0 ? "$identify" : `event-${i % names}`, properties, timestamp: new Date(now - (i % 1000)) };
  });
}

const db = await createTestDatabase();
const projectId = (await bootstrap(db.prisma, { email: "bench-definitions@example.com", password: "pw12345678" })).project_id;
const upkeep = new DefinitionsUpkeep(db.sql, 3_600_000);
const batch = events(projectId, COUNT, 20);

const time = (work: () => void) => {
  const started = process.cpuUsage();
  work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / COUNT;
};

const first = time(() => upkeep.observeEvents(batch));
let started = performance.now();
await upkeep.flush();
const firstFlush = performance.now() - started;
const steady = Math.min(...[1, 2, 3].map(() => time(() => upkeep.observeEvents(batch))));
started = performance.now();
await upkeep.flush();
const steadyFlush = performance.now() - started;

console.log(`definitions upkeep, ${COUNT.toLocaleString("en")} posthog-js-sized events (${KEYS.length} properties, 21 names)`);
console.log(`  observeEvents, first sight     ${first.toFixed(2)} µs CPU/event`);
console.log(`  observeEvents, steady state    ${steady.toFixed(2)} µs CPU/event`);
console.log(`  flush after first sight        ${firstFlush.toFixed(0)} ms`);
console.log(`  flush in steady state          ${steadyFlush.toFixed(0)} ms (${(3 * COUNT).toLocaleString("en")} events' counters)`);
await db.close();
