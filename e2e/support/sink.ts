/**
 * A webhook receiver on loopback for destination tests: records every request and answers
 * with the status `answer` gives (200 unless told otherwise).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface SinkRequest {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
}

export interface Sink {
  url: string;
  requests: SinkRequest[];
  /** The status for the next request (a function of it). */
  answer: (request: Omit<SinkRequest, "status">) => number;
  close(): Promise<void>;
}

export async function startSink(): Promise<Sink> {
  const sink: Sink = { url: "", requests: [], answer: () => 200, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const seen = { path: req.url ?? "/", method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      const status = sink.answer(seen);
      sink.requests.push({ ...seen, status });
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "receiver unavailable");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sink.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return sink;
}
