/** A bare node:http server in a process of its own: what HTTP alone costs on this machine. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startNodeProcess } from "./server-process";

/** Answers every request with `body` once it has read (and, when `parseJson`, parsed) the request body. */
export function bareServer(body: string, { parseJson = true } = {}) {
  const file = path.join(os.tmpdir(), `burrow-bare-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(file, body);
  const code = `
    const http = require("node:http");
    const body = require("node:fs").readFileSync(${JSON.stringify(file)});
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        ${parseJson ? 'JSON.parse(Buffer.concat(chunks).toString("utf8"));' : ""}
        res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
        res.end(body);
      });
    });
    server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port));`;
  return startNodeProcess(["-e", code], {});
}
