import { openDatabase } from "@/server/db/client";
import { registerDb } from "@/server/db";
import { computeQuery } from "@/server/query/service";
const db = await openDatabase({ kind: "postgres", url: "postgresql://root@127.0.0.1:5432/burrow_test_6542_4efbf83b" });
registerDb(db);
const range = { date_from: "-30d" };
const only = process.argv[2] ?? "";
const qs: [string, object][] = [
  ["overview", { kind: "WebOverviewQuery", properties: [], dateRange: range, compareFilter: { compare: true } }],
  ...["Page", "InitialPage", "Country", "Browser"].map((b) => [b, { kind: "WebStatsTableQuery", properties: [], breakdownBy: b, dateRange: range, limit: 10 }] as [string, object]),
];
for (const [label, q] of qs.filter(([l]) => l.includes(only))) {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) { const t = performance.now(); await computeQuery(db, 1, q, { refresh: "force" }); times.push(performance.now() - t); }
  console.log(label, times.map((t) => t.toFixed(0)).join(" "));
}
await db.close();
