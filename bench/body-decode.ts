/**
 * What decoding a JSON body costs the server's thread: `decodeRequest` (large bodies parsed
 * piece by piece, src/server/http/body/json-bytes.ts) against the plain way (the whole body
 * as one string, then JSON.parse), on `/batch/` bodies of posthog-js page views, and on
 * hostile 20 MB shapes (10 million tiny elements, deep nesting, one long string) to show the
 * pieces never cost more than a bounded multiple of the plain way. µs a body, medians.
 *
 *   npm run bench:body-decode [-- --runs 200]
 */
import { parseArgs } from "node:util";
import { decodeRequest } from "@/server/http/body/decode";
import { posthogJsPageview } from "./lib/posthog-js-event";

const { values } = parseArgs({ options: { runs: { type: "string", default: "200" } } });
const RUNS = Number(values.runs);
const URL_ = new URL("http://burrow.test/batch/");
const HEADERS = new Headers({ "content-type": "application/json" });
const now = new Date();

const batchBody = (events: number, seed: number) =>
  Buffer.from(JSON.stringify({ api_key: "phc_bench", batch: Array.from({ length: events }, (_, i) => posthogJsPageview((seed + i) % 300, seed + i, now)) }));

function plain(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
}

async function decoded(body: Buffer): Promise<unknown> {
  try {
    return (await decodeRequest("POST", URL_, HEADERS, body)).payload;
  } catch {
    return null;
  }
}

/**
 * Median µs of `fn` over `bodies` taken in turn, after a warm-up (a quarter as many runs, at most 50).
 * A promise `fn` returns is awaited inside the timing; a plain value is not (no extra turn for `plain`).
 */
async function time(fn: (body: Buffer) => unknown, bodies: Buffer[], runs: number): Promise<number> {
  for (let i = 0; i < Math.min(50, Math.ceil(runs / 4)); i++) {
    const result = fn(bodies[i % bodies.length]!);
    if (result instanceof Promise) await result;
  }
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = fn(bodies[i % bodies.length]!);
    if (result instanceof Promise) await result;
    samples.push((performance.now() - started) * 1000);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

const captureBody = (seed: number) => Buffer.from(JSON.stringify({ api_key: "phc_bench", ...posthogJsPageview(seed % 300, seed, now) }));

const cases: { label: string; bodies: Buffer[]; runs: number }[] = [
  { label: "/capture/, 1 posthog-js page view", bodies: Array.from({ length: 20 }, (_, s) => captureBody(s)), runs: RUNS * 20 },
  ...[20, 50, 100, 200].map((events) => ({ label: `/batch/, ${events} posthog-js page views`, bodies: Array.from({ length: 20 }, (_, s) => batchBody(events, s * events)), runs: RUNS })),
  { label: "20 MB: 10 million tiny elements", bodies: [Buffer.from(`{"batch":[${"1,".repeat(10_000_000 - 1)}1]}`)], runs: 3 },
  { label: "20 MB: nested 10 million deep", bodies: [Buffer.from(`{"batch":${"[".repeat(10_000_000)}${"]".repeat(10_000_000)}}`)], runs: 3 },
  { label: "20 MB: one string", bodies: [Buffer.from(`{"batch":[{"s":"${"x".repeat(20_000_000)}"}]}`)], runs: 3 },
];

console.log(`${"body".padEnd(40)} ${"bytes".padStart(10)} ${"plain µs".padStart(11)} ${"decodeRequest µs".padStart(17)}`);
for (const { label, bodies, runs } of cases) {
  const before = await time(plain, bodies, runs);
  const after = await time(decoded, bodies, runs);
  const us = (value: number) => value.toFixed(value < 100 ? 1 : 0);
  console.log(`${label.padEnd(40)} ${String(bodies[0]!.length).padStart(10)} ${us(before).padStart(11)} ${us(after).padStart(17)}`);
}
