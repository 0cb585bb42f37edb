// The open-loop client of paced.ts, run as a process of its own (plain JavaScript, no tsx):
// `node paced-client.mjs <spec.json>` with {url, rate, durationS, bodies}; prints the result
// as one JSON line. A process of its own because the benchmark's process holds a seeded
// heap: the 12 KB answers of /flags made it mark and compact every second, 5–20 ms each,
// and its pauses were counted as the server's latency.
// PACED_TIMELINE=<file> appends each run's [ms after the start it was due, latency ms] pairs as
// one JSON line, to see when in a run the slow requests were (a warm-up, a stall, a queue).
import fs from "node:fs";
import http from "node:http";

const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const { url, rate, durationS, bodies } = spec;
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const target = new URL(url);
const latencies = [];
let failed = 0;
/** Why requests failed: "status 503", "ECONNRESET", … with counts. */
const failures = {};
const fail = (why) => {
  failed++;
  failures[why] = (failures[why] ?? 0) + 1;
};
const total = Math.round(rate * durationS);
const inFlight = new Set();
const timeline = [];

function send(index, due) {
  const body = bodies[index % bodies.length];
  const done = new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode !== 200) fail(`status ${res.statusCode}`);
          const latency = performance.now() - due;
          latencies.push(latency);
          timeline.push([Math.round(due - start), Math.round(latency)]);
          resolve();
        });
      },
    );
    req.on("error", (error) => {
      fail(error.code ?? error.message);
      resolve();
    });
    req.end(body);
  });
  inFlight.add(done);
  void done.then(() => inFlight.delete(done));
}

const start = performance.now();
let sent = 0;
while (sent < total) {
  const due = Math.min(total, Math.floor(((performance.now() - start) * rate) / 1000) + 1);
  while (sent < due) {
    send(sent, start + (sent * 1000) / rate);
    sent++;
  }
  await new Promise((resolve) => setTimeout(resolve, 1));
}
await Promise.all(inFlight);
agent.destroy();
if (process.env.PACED_TIMELINE) fs.appendFileSync(process.env.PACED_TIMELINE, JSON.stringify({ url, timeline }) + "\n");
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? null;
console.log(
  JSON.stringify({ sent, failed, failures, p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] ?? null, inTime: latencies.filter((ms) => ms <= 1000).length }),
);
