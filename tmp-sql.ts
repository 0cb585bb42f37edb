import { postgresWebOverviewStatement, postgresWebStatsStatement } from "@/server/db/events/postgres-web";
const now = Date.now();
const cur = { from: new Date(now - 31 * 86400e3), to: new Date(now) };
const prev = { from: new Date(now - 62 * 86400e3), to: new Date(now - 31 * 86400e3 - 1) };
const st = process.argv[2] === "overview" ? postgresWebOverviewStatement(1, { current: cur, previous: prev, filters: [], now: new Date() })
  : postgresWebStatsStatement(1, { current: cur, previous: null, filters: [], now: new Date(), breakdown: process.argv[2] as never, includeBounceRate: false, limit: 10, offset: 0 });
let text = st.text;
st.values.forEach((v, i) => { text = text.replaceAll(new RegExp(`\\$${i + 1}(?![0-9])`, "g"), typeof v === "number" ? String(v) : Array.isArray(v) ? `ARRAY[${v.map((x) => `'${x}'`).join(",")}]` : `'${v}'`); });
console.log(text + ";");
