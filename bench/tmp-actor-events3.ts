import pg from "pg";
import { postgresActorEventsStatement } from "@/server/db/events/postgres-actor-events";
const pool = new pg.Pool({ connectionString: "postgres://root@127.0.0.1:5432/qexp", max: 4 });
const now = new Date();
const q = { from: new Date(now.getTime() - 30 * 86400e3), to: now, now, filters: [], everyEvent: false, values: [],
  matchers: [{ event: "$pageview", filters: [] }, { event: "signed_up", filters: [] }, { event: "purchase", filters: [] }] };
const st = postgresActorEventsStatement(1, q);
const sorted = st.text.replace(/ LIMIT /, " ORDER BY e.person_id, e.distinct_id COLLATE \"C\", e.timestamp LIMIT ");
const c = await pool.connect();
for (const wm of ["4MB", "32MB", "64MB"]) {
  await c.query(`SET work_mem = '${wm}'`);
  for (let i = 0; i < 3; i++) {
    let s = performance.now();
    const r = await c.query({ text: sorted, values: st.values, rowMode: "array" });
    const a = performance.now() - s; s = performance.now();
    const rows = r.rows; let actors = 0; let prev = "";
    const out = [];
    let times: number[] = [], masks: number[] = [];
    for (const row of rows) { if (row[0] !== prev) { if (prev) out.push({ actor: prev, times, masks }); prev = row[0]; times = []; masks = []; actors++; } times.push(row[1]); masks.push(row[2]); }
    console.log(wm, "sorted sql+fetch", a.toFixed(0), "scan", (performance.now() - s).toFixed(0), rows.length, actors);
  }
  const e = await c.query({ text: "EXPLAIN ANALYZE " + sorted, values: st.values });
  console.log(e.rows.map((x) => x["QUERY PLAN"]).filter((l: string) => /Sort|Execution/.test(l)).join("\n"));
}
c.release();
await pool.end();
