/**
 * The CPU a `/decide?v=3` and a `/flags?v=2` answer costs, in-process (no HTTP, no other
 * load), on bench:hot's flags project (100,000 persons, 50 flags) on an in-memory embedded
 * database: first as seeded, then with bench:hot's `--platform` objects made through the REST
 * routes: 20 running surveys and 10 early-access features (50 more flags), then 20
 * experiments, half behind a holdout, on top (20 more). A figure that the machine's other
 * load hardly moves, unlike bench:hot's latencies: what issue 36's "unchanged with surveys
 * and early-access features" costs per request.
 *
 *   npm run bench:flags-cpu [-- --requests 20000 --rounds 3]
 */
import { parseArgs } from "node:util";
import { registerDb } from "@/server/db";
import { openDatabase } from "@/server/db/client";
import { rawDecide, rawFlags } from "@/server/http/sdk/flags";
import type { RawHandler } from "@/server/http/raw";
import { restRoute } from "@/test-support/rest-routes";
import { PERSONS, seedFlagsProject } from "./lib/flags-seed";
import { createPlatformObjects, PLATFORM, type PlatformPoster } from "./lib/platform";

const { values } = parseArgs({ options: { requests: { type: "string", default: "20000" }, rounds: { type: "string", default: "3" } } });
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const IN_FLIGHT = 16;

const db = await openDatabase({ kind: "pglite-memory" });
registerDb(db);
const project = await seedFlagsProject(db);

/** The platform objects through the REST handlers, as a client would make them. */
const post: PlatformPoster = async (path, body) => {
  const [resource] = path.split("/");
  const handler = restRoute("projects", resource!).POST;
  const response = await handler(
    new Request(`http://localhost/api/projects/${project.projectId}/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${project.personalKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ project_id: String(project.projectId) }) },
  );
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: number | string };
};

function request(url: string, distinctId: string) {
  return {
    method: "POST",
    url,
    header: (name: string) => (name === "content-type" ? "application/json" : null),
    body: new TextEncoder().encode(JSON.stringify({ token: project.token, distinct_id: distinctId })),
    remoteAddress: "127.0.0.1",
  };
}

/** CPU µs per answer over `REQUESTS` answers, `IN_FLIGHT` at a time, each for another person (a tenth new visitors). */
async function cpuPerAnswer(handler: RawHandler, url: string): Promise<{ cpuUs: number; bytes: number; flags: number }> {
  let next = 0;
  let bytes = 0;
  let flags = 0;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < REQUESTS) {
        const n = next++;
        const distinctId = n % 10 === 0 ? `visitor-${n}-${Math.random()}` : `person-${1 + ((n * 7919) % PERSONS)}`;
        const response = await handler(request(url, distinctId));
        if (response.status !== 200) throw new Error(`${url}: ${response.status} ${String(response.body)}`);
        bytes += (response.body as string).length;
        if (n === 0) {
          const body = JSON.parse(response.body as string) as { flags?: object; featureFlags?: object };
          flags = Object.keys(body.flags ?? body.featureFlags ?? {}).length;
        }
      }
    }),
  );
  const used = process.cpuUsage(before);
  next = 0;
  return { cpuUs: (used.user + used.system) / REQUESTS, bytes: bytes / REQUESTS, flags };
}

async function measure(label: string) {
  for (const [name, handler, url] of [
    ["/decide?v=3", rawDecide, "/decide/?v=3"],
    ["/flags?v=2", rawFlags, "/flags/?v=2"],
  ] as const) {
    await cpuPerAnswer(handler, url); // warm
    const runs = [];
    for (let round = 0; round < ROUNDS; round++) runs.push(await cpuPerAnswer(handler, url));
    const cpu = runs.map((run) => run.cpuUs).sort((a, b) => a - b);
    console.log(`  ${label.padEnd(34)} ${name.padEnd(12)} ${String(runs[0]!.flags).padStart(4)} flags  CPU ${cpu[Math.floor(cpu.length / 2)]!.toFixed(0).padStart(4)} µs/answer (min ${cpu[0]!.toFixed(0)}, max ${cpu.at(-1)!.toFixed(0)})  ${Math.round(runs[0]!.bytes)} bytes`);
  }
}

console.log(`flags CPU per answer, in-process, embedded database in memory, ${REQUESTS} answers × ${ROUNDS} rounds, ${IN_FLIGHT} in flight`);
await measure("50 flags");
// Surveys and early-access features first (issue 36's "unchanged"), then experiments on top (37's).
await createPlatformObjects(post, new Set(["surveys", "early-access"]));
await measure(`+ ${PLATFORM.surveys} surveys, ${PLATFORM.earlyAccess} EAFs`);
await createPlatformObjects(post, new Set(["experiments"]));
await measure(`  + ${PLATFORM.experiments} experiments`);
await db.close();
