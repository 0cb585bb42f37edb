import pg from "pg";
import { pgPoolDriver } from "@/server/db/driver";
import { PostgresEventStore } from "@/server/db/events";
const pool = new pg.Pool({ connectionString: "postgres://root@127.0.0.1:5432/qexp", max: 4 });
const store = new PostgresEventStore(pgPoolDriver(pool), 4);
const now = new Date();
const q = { from: new Date(now.getTime() - 30 * 86400e3), to: now, now, filters: [], everyEvent: false, values: [],
  matchers: [{ event: "$pageview", filters: [] }, { event: "signed_up", filters: [] }, { event: "purchase", filters: [] }] };
for (let i = 0; i < 4; i++) {
  const s = performance.now();
  const r = await store.actorEvents(1, q);
  console.log("actorEvents", (performance.now() - s).toFixed(0), "ms", r.length, "actors", r.reduce((n, a) => n + a.times.length, 0), "events");
}
await pool.end();
