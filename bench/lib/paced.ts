/** An open-loop HTTP client: requests go out at a fixed rate whatever the server does. */
import http from "node:http";

export interface PacedResult {
  sent: number;
  failed: number;
  p50: number;
  p99: number;
  max: number;
  /** Requests answered (with any status) within a second of being due. */
  inTime: number;
}

/**
 * Request i is due at start + i/rate; its latency runs from when it was due to when its
 * answer ended, so a server stall counts against every request it delayed (no coordinated
 * omission). `bodyOf(i)` is the i-th request's body.
 */
export async function paced(url: string, rate: number, durationS: number, bodyOf: (index: number) => string): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const target = new URL(url);
  const latencies: number[] = [];
  let failed = 0;
  const total = Math.round(rate * durationS);
  const start = performance.now();
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const send = (index: number, due: number) => {
    const body = bodyOf(index);
    const done = new Promise<void>((resolve) => {
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
            if (res.statusCode !== 200) failed++;
            latencies.push(performance.now() - due);
            resolve();
          });
        },
      );
      req.on("error", () => {
        failed++;
        resolve();
      });
      req.end(body);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };
  while (sent < total) {
    const elapsed = performance.now() - start;
    const due = Math.min(total, Math.floor((elapsed * rate) / 1000) + 1);
    while (sent < due) {
      send(sent, start + (sent * 1000) / rate);
      sent++;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { sent, failed, p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] ?? Number.NaN, inTime: latencies.filter((ms) => ms <= 1000).length };
}
