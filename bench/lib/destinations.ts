/**
 * `bench:hot --destinations N`: N active webhook destinations (every event) delivering to a
 * receiver of the bench's own on loopback, so that capture's figures can be compared with
 * and without them, and how fast the outbox drains (events/s delivered) read off the sink.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface BenchSink {
  url: string;
  /** Requests received so far. */
  received(): number;
  /** Delivered per second from the first request to the last one. */
  rate(): number;
  close(): Promise<void>;
}

export async function startBenchSink(): Promise<BenchSink> {
  let count = 0;
  let first = 0;
  let last = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const now = performance.now();
      if (count++ === 0) first = now;
      last = now;
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => count,
    rate: () => (last > first ? ((count - 1) * 1000) / (last - first) : 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Creates `n` enabled webhook destinations of every event, through the REST API. */
export async function createDestinations(base: string, projectId: number, personalKey: string, n: number, sinkUrl: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    const response = await fetch(`${base}/api/projects/${projectId}/hog_functions/`, {
      method: "POST",
      headers: { authorization: `Bearer ${personalKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        type: "destination",
        name: `bench ${i + 1}`,
        enabled: true,
        template_id: "template-webhook",
        inputs: { url: { value: `${sinkUrl}/d${i + 1}` }, body: { value: { event: "{event.event}", url: "{event.properties.$current_url}" } } },
        filters: {},
      }),
    });
    if (response.status !== 201) throw new Error(`creating destination ${i + 1} failed: ${response.status} ${await response.text()}`);
  }
}
