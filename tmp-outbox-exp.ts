import { createTestDatabase } from "@/test-support/db";
import { makeEvents } from "./bench/lib/raw-insert";
import { sessionDeltasOf } from "@/server/db/events/sessions/deltas";
import { insertSessionDeltas } from "@/server/db/events/sessions/postgres";
import { postgresCpuSeconds, postgresCpuSince } from "./bench/lib/cpu";

const EVENT_COLUMNS = "uuid, project_id, event, distinct_id, properties, timestamp, person_id, elements_chain, historical_migration";
const EVENT_RECORD = `r(uuid uuid, project_id int, event text, distinct_id text, properties jsonb, timestamp timestamptz, person_id uuid, elements_chain text, historical_migration bool)`;
const ins = `inserted AS (INSERT INTO events (${EVENT_COLUMNS}) SELECT * FROM jsonb_to_recordset($1::jsonb) AS ${EVENT_RECORD} RETURNING 1)`;
const D = ["0190f7a1-0000-7000-8000-000000000001", "0190f7a1-0000-7000-8000-000000000002", "0190f7a1-0000-7000-8000-000000000003", "0190f7a1-0000-7000-8000-000000000004", "0190f7a1-0000-7000-8000-000000000005"];
const variants: Record<string, { text: string; third: ((uuid: string) => string) | null }> = {
  base: { text: `WITH ${ins}, deltas AS (${insertSessionDeltas("$2")}) SELECT count(*)::int AS n FROM inserted`, third: null },
  outbox: { text: `WITH ${ins}, deltas AS (${insertSessionDeltas("$2")}), outbox AS (INSERT INTO hog_function_outbox_batches (routes) SELECT $3::jsonb) SELECT count(*)::int AS n FROM inserted`, third: (u) => JSON.stringify([{ project_id: 1, destinations: D, events: [u] }]) },
  unusedParam: { text: `WITH ${ins}, deltas AS (${insertSessionDeltas("$2")}) SELECT count(*)::int AS n FROM inserted WHERE $3::text IS NOT NULL`, third: (u) => JSON.stringify([{ project_id: 1, destinations: D, events: [u] }]) },
  tinyOutbox: { text: `WITH ${ins}, deltas AS (${insertSessionDeltas("$2")}), outbox AS (INSERT INTO hog_function_outbox_batches (routes) SELECT $3::jsonb) SELECT count(*)::int AS n FROM inserted`, third: () => "[1]" },
  literalOutbox: { text: `WITH ${ins}, deltas AS (${insertSessionDeltas("$2")}), outbox AS (INSERT INTO hog_function_outbox_batches (routes) SELECT '${JSON.stringify([{ project_id: 1, destinations: D, events: ["x"] }])}'::jsonb) SELECT count(*)::int AS n FROM inserted`, third: null },
};
const db = await createTestDatabase({ kind: "postgres" });
const org = await db.prisma.organization.create({ data: { name: "x" } });
const project = await db.prisma.project.create({ data: { organizationId: org.id, name: "x", apiToken: `phc_x_${Date.now()}` } });
const N = 2000;
async function block(name: string) {
  const v = variants[name]!;
  const events = makeEvents(project.id, N);
  const p0 = process.cpuUsage(); const g0 = postgresCpuSeconds(); const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < N) {
      const e = events[next++]!;
      const row = JSON.stringify({ uuid: e.uuid, project_id: e.projectId, event: e.event, distinct_id: e.distinctId, properties: e.properties, timestamp: e.timestamp.toISOString(), person_id: null, elements_chain: "", historical_migration: false });
      const params: unknown[] = [`[${row}]`, JSON.stringify(sessionDeltasOf([e]))];
      if (v.third) params.push(v.third(e.uuid));
      await db.sql.query(v.text, params, { prepare: `exp_${name}` });
    }
  }));
  const u = process.cpuUsage(p0);
  return { wall: ((performance.now() - t0) * 1000) / N, proc: (u.user + u.system) / N, pg: (postgresCpuSince(g0) * 1e6) / N };
}
const names = Object.keys(variants);
for (const n of names) await block(n);
const res: Record<string, { wall: number; proc: number; pg: number }[]> = {};
for (let r = 0; r < 4; r++) for (const n of r % 2 ? [...names].reverse() : names) (res[n] ??= []).push(await block(n));
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const n of names) console.log(n.padEnd(14), "wall", med(res[n]!.map((x) => x.wall)).toFixed(0), "proc", med(res[n]!.map((x) => x.proc)).toFixed(0), "pg", med(res[n]!.map((x) => x.pg)).toFixed(0));
await db.close();
