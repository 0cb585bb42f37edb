import pg from "pg";
import { pgPoolDriver } from "@/server/db/driver";
import { groupActorEvents, type ActorEventRow } from "@/server/db/events";
import { postgresActorEventsStatement } from "@/server/db/events/postgres-actor-events";
const pool = new pg.Pool({ connectionString: "postgres://root@127.0.0.1:5432/qexp", max: 4 });
const sql = pgPoolDriver(pool);
const now = new Date();
const q = { from: new Date(now.getTime() - 30 * 86400e3), to: now, now, filters: [], everyEvent: false, values: [],
  matchers: [{ event: "$pageview", filters: [] }, { event: "signed_up", filters: [] }, { event: "purchase", filters: [] }] };
const st = postgresActorEventsStatement(1, q);
console.log(st.text);
for (let i = 0; i < 4; i++) {
  let s = performance.now();
  const rows = await sql.query<ActorEventRow>(st.text, st.values, { rowMode: "array" });
  const a = performance.now() - s; s = performance.now();
  const g = groupActorEvents(rows, 0);
  console.log("sql+fetch", a.toFixed(0), "group", (performance.now() - s).toFixed(0), rows.length, g.length);
}
const r = await pool.query("EXPLAIN ANALYZE " + st.text, st.values);
console.log(r.rows.map((x) => x["QUERY PLAN"]).join("\n"));
await pool.end();
