/**
 * `/decide?v=3` on the real server (`dist/server.mjs`): 50 flags (a third with person-property
 * conditions) on a project with 100,000 persons, each request for a different stored person.
 *
 *   - saturation: wrk at 64 connections, requests/s and p50/p99, beside a bare node:http
 *     server (its own process) answering the same request with the same response body;
 *   - steady load: an open-loop client in a process of its own, paced at 1,000 requests/s
 *     (latency counted from when each request was due, so a stall is not hidden by requests
 *     not sent), p50/p99/max.
 *
 *   npm run bench:decide [-- --duration 20 --rate 1000 --db both|pglite|postgres] [--cohorts]
 *
 * With `--cohorts [--rounds 5]`: two deployments seeded alike, the second with every
 * person-property condition moved into a dynamic cohort of the same filters (the flag's
 * condition becomes `{type: "cohort"}`), served at once and measured in alternation; the
 * answers must be identical; target: cohort p99 within 20% of plain.
 *
 * Targets on a 2-core machine: ≥ 5,000 requests/s at saturation, p99 < 10 ms at 1,000/s.
 * Needs wrk (apt-get install wrk) and a build (npm run build).
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { bootstrap } from "@/server/accounts/service";
import { openDatabase, type Database } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createEmptyPostgresDatabase } from "@/test-support/db";
import { bareServer } from "./lib/bare-server";
import { paced, type PacedResult } from "./lib/paced";
import { startServer, stop } from "./lib/server-process";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "20" },
    rate: { type: "string", default: "1000" },
    connections: { type: "string", default: "64" },
    db: { type: "string", default: "both" },
    cohorts: { type: "boolean", default: false },
    rounds: { type: "string", default: "5" },
  },
});
const DURATION_S = Number(values.duration);
const RATE = Number(values.rate);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const PERSONS = 100_000;
const FLAGS = 50;
const ROOT = path.resolve(import.meta.dirname, "..");

/** 50 flags: every third reads person properties; the rest are rollouts and multivariates with payloads. */
function flagDefinitions(): Array<{ key: string; filters: object }> {
  const personConditions = [
    [{ key: "plan", value: ["pro", "team"], operator: "exact", type: "person" }],
    [{ key: "email", value: "@acme.com", operator: "icontains", type: "person" }],
    [{ key: "age", value: 40, operator: "gt", type: "person" }],
    [{ key: "country", value: "^(SE|DE)$", operator: "regex", type: "person" }],
    [{ key: "plan", value: "free", operator: "is_not", type: "person" }, { key: "age", value: "30", operator: "lte", type: "person" }],
    [{ key: "signed_up", value: "-180d", operator: "is_date_after", type: "person" }],
  ];
  return Array.from({ length: FLAGS }, (_, index) => {
    const key = `bench-flag-${index}`;
    if (index % 3 === 0) {
      return { key, filters: { groups: [{ properties: personConditions[(index / 3) % personConditions.length], rollout_percentage: 50 + (index % 50) }], payloads: { true: '{"on":true}' } } };
    }
    if (index % 3 === 1) {
      return {
        key,
        filters: {
          groups: [{ properties: [], rollout_percentage: 30 + index }],
          multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] },
          payloads: { control: '{"v":"c"}', test: '{"v":"t"}' },
        },
      };
    }
    return { key, filters: { groups: [{ properties: [], rollout_percentage: index * 2 }] } };
  });
}

/** Moves each flag's person-property condition into a dynamic cohort of the same filters. */
async function cohortise(db: Database, token: string): Promise<void> {
  const [project] = await db.sql.query<{ id: number }>(`SELECT id FROM projects WHERE api_token = $1`, [token]);
  const flags = await db.sql.query<{ id: number; key: string; filters: { groups: { properties: object[] }[] } | string }>(`SELECT id, key, filters FROM feature_flags WHERE project_id = $1`, [project!.id]);
  for (const flag of flags) {
    const filters = typeof flag.filters === "string" ? JSON.parse(flag.filters) : flag.filters;
    const group = filters.groups[0];
    if (!group || group.properties.length === 0) continue;
    const properties = { type: "OR", values: [{ type: "AND", values: group.properties.map((property: object) => ({ ...property, negation: false })) }] };
    const [cohort] = await db.sql.query<{ id: number }>(`INSERT INTO cohorts (project_id, name, filters, updated_at) VALUES ($1, $2, $3::jsonb, now()) RETURNING id`, [project!.id, `cohort of ${flag.key}`, JSON.stringify({ properties })]);
    group.properties = [{ key: "id", type: "cohort", value: Number(cohort!.id), operator: "in" }];
    await db.sql.query(`UPDATE feature_flags SET filters = $2::jsonb, version = version + 1 WHERE id = $1`, [flag.id, JSON.stringify(filters)]);
  }
}

async function seed(db: Database): Promise<string> {
  await migrate(db.sql);
  const { project_api_key: token, project_id: projectId } = await bootstrap(db.prisma, { email: "bench@example.com", password: "bench-password" });
  await db.sql.query(
    `INSERT INTO persons (project_id, properties, is_identified, updated_at)
     SELECT $1, jsonb_build_object(
              'plan', (ARRAY['free','pro','team'])[1 + g % 3],
              'email', 'user' || g || '@' || (ARRAY['acme.com','example.com','mail.net'])[1 + g % 3],
              'age', 18 + g % 60,
              'country', (ARRAY['SE','US','DE','FR'])[1 + g % 4],
              'signed_up', to_char(now() - (g % 400) * interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
            true, now()
       FROM generate_series(1, ${PERSONS}) AS g`,
    [projectId],
  );
  await db.sql.query(
    `INSERT INTO person_distinct_ids (project_id, person_id, distinct_id)
     SELECT project_id, id, 'person-' || row_number() OVER (ORDER BY id) FROM persons WHERE project_id = $1`,
    [projectId],
  );
  for (const flag of flagDefinitions()) {
    await db.sql.query(`INSERT INTO feature_flags (project_id, key, name, filters, updated_at) VALUES ($1, $2, $3, $4::jsonb, now())`, [projectId, flag.key, flag.key, JSON.stringify(flag.filters)]);
  }
  return token;
}

interface WrkResult {
  requestsPerSecond: number;
  p50: string;
  p99: string;
  non2xx: number;
  errors: string;
}

/** wrk with a Lua script that asks for a different person (of the 100,000) each request. */
async function wrk(url: string, token: string): Promise<WrkResult> {
  const script = path.join(os.tmpdir(), `burrow-wrk-decide-${process.pid}.lua`);
  fs.writeFileSync(
    script,
    `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  local id = (n * 7919) % ${PERSONS} + 1
  return wrk.format(nil, nil, nil, '{"api_key":"${token}","distinct_id":"person-' .. id .. '"}')
end
`,
  );
  const { stdout: out } = await promisify(execFile)("wrk", ["-t1", `-c${CONNECTIONS}`, `-d${DURATION_S}s`, "--latency", "-s", script, url], { encoding: "utf8" });
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: /Latency Distribution[\s\S]*?50%\s+(\S+)/.exec(out)?.[1] ?? "?",
    p99: /Latency Distribution[\s\S]*?99%\s+(\S+)/.exec(out)?.[1] ?? "?",
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    errors: /Socket errors:.*/.exec(out)?.[0] ?? "none",
  };
}

/** The steady load's bodies: each request for another stored person. */
const personBodies = (token: string) => Array.from({ length: RATE * DURATION_S }, (_, index) => `{"api_key":"${token}","distinct_id":"person-${((index * 7919) % PERSONS) + 1}"}`);

interface Setup {
  label: string;
  env: Record<string, string>;
  open: () => Promise<Database>;
  cleanup: () => Promise<void>;
}

function pgliteSetup(): Setup {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-decide-"));
  return { label: "embedded PostgreSQL (PGlite, on disk)", env: { DATA_DIR: dataDir }, open: () => openDatabase({ kind: "pglite", dataDir }), cleanup: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

async function postgresSetup(): Promise<Setup> {
  const database = await createEmptyPostgresDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "burrow-bench-secret-"));
  return {
    label: "PostgreSQL server",
    env: { DATABASE_URL: database.url, DATA_DIR: dataDir },
    open: () => openDatabase({ kind: "postgres", url: database.url }),
    cleanup: async () => {
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function run(setup: Setup) {
  const seeding = performance.now();
  const db = await setup.open();
  const token = await seed(db);
  await db.close();
  console.log(`\n${setup.label}: ${PERSONS} persons and ${FLAGS} flags seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

  const server = await startServer(setup.env);
  let sample: string;
  let saturated: WrkResult;
  let steady: PacedResult;
  try {
    const url = `${server.url}/decide/?v=3`;
    sample = await checkedSample(url, token);
    saturated = await wrk(url, token);
    steady = await paced(url, RATE, DURATION_S, personBodies(token));
  } finally {
    await stop(server.child);
  }
  await setup.cleanup();

  const bare = await bareServer(sample);
  let bareSaturated: WrkResult;
  let bareSteady: PacedResult;
  try {
    bareSaturated = await wrk(`${bare.url}/decide/?v=3`, token);
    bareSteady = await paced(`${bare.url}/decide/?v=3`, RATE, DURATION_S, personBodies(token));
  } finally {
    await stop(bare.child);
  }

  console.log(`  response: ${sample.length} bytes, ${FLAGS} flags (${Math.ceil(FLAGS / 3)} with person-property conditions)`);
  console.log(`  saturation, wrk ${CONNECTIONS} connections, ${DURATION_S} s:`);
  console.log(`    bare node:http     ${rps(bareSaturated.requestsPerSecond)} req/s   p50 ${bareSaturated.p50}  p99 ${bareSaturated.p99}`);
  console.log(`    /decide?v=3        ${rps(saturated.requestsPerSecond)} req/s   p50 ${saturated.p50}  p99 ${saturated.p99}   ${(saturated.requestsPerSecond / bareSaturated.requestsPerSecond).toFixed(2)} of bare   non-2xx ${saturated.non2xx}   ${saturated.errors}   (target ≥ 5000 req/s)`);
  console.log(`  steady ${RATE} req/s for ${DURATION_S} s (open loop):`);
  console.log(`    bare node:http     p50 ${ms(bareSteady.p50)}  p99 ${ms(bareSteady.p99)}  max ${ms(bareSteady.max)}   failed ${bareSteady.failed}/${bareSteady.sent}`);
  console.log(`    /decide?v=3        p50 ${ms(steady.p50)}  p99 ${ms(steady.p99)}  max ${ms(steady.max)}   failed ${steady.failed}/${steady.sent}   (target p99 < 10 ms)`);
}

const rps = (value: number) => Math.round(value).toString().padStart(7);
const ms = (value: number) => `${value.toFixed(2)} ms`;

/** One /decide answer for person-42, checked to hold every flag. */
async function checkedSample(url: string, token: string): Promise<string> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: token, distinct_id: "person-42" }) });
  const sample = await response.text();
  const flags = Object.keys((JSON.parse(sample) as { featureFlags: object }).featureFlags).length;
  if (response.status !== 200 || flags !== FLAGS) throw new Error(`unexpected /decide answer (${response.status}, ${flags} flags): ${sample.slice(0, 300)}`);
  return sample;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const wrkMs = (text: string) => (text.endsWith("us") ? parseFloat(text) / 1000 : text.endsWith("ms") ? parseFloat(text) : text.endsWith("s") ? parseFloat(text) * 1000 : NaN);

/**
 * `--cohorts`: two deployments seeded alike, one with plain person-property conditions and
 * one with each moved into a cohort, both servers up at once and measured in alternation
 * (so a busy neighbour weighs on both alike), `ROUNDS` paced runs and one wrk run each.
 */
async function runCompare(plainSetup: Setup, cohortSetup: Setup) {
  const tokens: string[] = [];
  for (const [index, setup] of [plainSetup, cohortSetup].entries()) {
    const db = await setup.open();
    tokens.push(await seed(db));
    if (index === 1) await cohortise(db, tokens[1]!);
    await db.close();
  }
  console.log(`\n${plainSetup.label}: two deployments of ${PERSONS} persons and ${FLAGS} flags (${Math.ceil(FLAGS / 3)} with person-property conditions), one with each condition in a cohort`);
  const servers = await Promise.all([startServer(plainSetup.env), startServer(cohortSetup.env)]);
  const names = ["plain  ", "cohorts"];
  const steady: PacedResult[][] = [[], []];
  const saturated: WrkResult[] = [];
  try {
    const urls = servers.map((server) => `${server.url}/decide/?v=3`);
    const samples = await Promise.all(urls.map((url, index) => checkedSample(url, tokens[index]!)));
    const flagsOf = (body: string) => JSON.stringify((JSON.parse(body) as { featureFlags: object }).featureFlags);
    if (flagsOf(samples[0]!) !== flagsOf(samples[1]!)) throw new Error(`cohort conditions answered differently:\n${flagsOf(samples[0]!)}\n${flagsOf(samples[1]!)}`);
    for (let round = 0; round < ROUNDS; round++) {
      for (const index of round % 2 === 0 ? [0, 1] : [1, 0]) steady[index]!.push(await paced(urls[index]!, RATE, DURATION_S, personBodies(tokens[index]!)));
    }
    for (const index of [0, 1]) saturated.push(await wrk(urls[index]!, tokens[index]!));
  } finally {
    await Promise.all(servers.map((server) => stop(server.child)));
  }
  await plainSetup.cleanup();
  await cohortSetup.cleanup();

  console.log(`  steady ${RATE} req/s, ${ROUNDS} alternating runs of ${DURATION_S} s each (open loop), medians:`);
  const p99s = steady.map((runs) => median(runs.map((run) => run.p99)));
  for (const index of [0, 1]) {
    const runs = steady[index]!;
    console.log(
      `    ${names[index]}  p50 ${ms(median(runs.map((run) => run.p50)))}  p99 ${ms(p99s[index]!)}  (runs: ${runs.map((run) => run.p99.toFixed(1)).join(", ")} ms)   failed ${runs.reduce((sum, run) => sum + run.failed, 0)}`,
    );
  }
  console.log(`    cohort p99 ${((p99s[1]! / p99s[0]! - 1) * 100).toFixed(0)}% vs plain (target within 20%)`);
  console.log(`  saturation, wrk ${CONNECTIONS} connections, ${DURATION_S} s:`);
  for (const index of [0, 1]) console.log(`    ${names[index]}  ${rps(saturated[index]!.requestsPerSecond)} req/s   p50 ${saturated[index]!.p50}  p99 ${saturated[index]!.p99}`);
  console.log(`    cohort wrk p99 ${((wrkMs(saturated[1]!.p99) / wrkMs(saturated[0]!.p99) - 1) * 100).toFixed(0)}% vs plain`);
}

if (!fs.existsSync(path.join(ROOT, "dist/server.mjs"))) execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
if (values.cohorts) {
  if (values.db === "both" || values.db === "pglite") await runCompare(pgliteSetup(), pgliteSetup());
  if (values.db === "both" || values.db === "postgres") await runCompare(await postgresSetup(), await postgresSetup());
} else {
  if (values.db === "both" || values.db === "pglite") await run(pgliteSetup());
  if (values.db === "both" || values.db === "postgres") await run(await postgresSetup());
}
