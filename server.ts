/**
 * Burrow's production server (`npm start`): opens and migrates the database, then serves
 * the public hot paths itself and hands everything else to Next.
 */
import http from "node:http";
import type { Socket } from "node:net";
import next from "next";
import { ConfigError, dbConfigFromEnv, describeDb } from "@/server/db/config";
import { openDatabase } from "@/server/db/client";
import { closeDb, registerDb } from "@/server/db";
import { migrate, MigrationError } from "@/server/db/migrate";
import { serverEnvFrom } from "@/server/env";
import { matchFastRoute } from "@/server/http/fast-routes";
import { serveWithFetchHandler } from "@/server/http/node-adapter";

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  const env = serverEnvFrom();
  const dbConfig = dbConfigFromEnv();
  const db = await openDatabase(dbConfig);
  try {
    const applied = await migrate(db.sql);
    if (applied.length > 0) console.log(`burrow: applied migrations ${applied.join(", ")}`);
  } catch (error) {
    await db.close();
    throw error;
  }
  registerDb(db);

  const server = http.createServer();
  const app = next({ dev: false, dir: process.cwd(), hostname: env.hostname, port: env.port, httpServer: server });
  await app.prepare();
  const handleWithNext = app.getRequestHandler();
  const origin = `http://${env.hostname === "0.0.0.0" ? "localhost" : env.hostname}:${env.port}`;

  server.on("request", (req, res) => {
    const queryAt = req.url?.indexOf("?") ?? -1;
    const pathname = queryAt === -1 ? (req.url ?? "/") : req.url!.slice(0, queryAt);
    const fast = matchFastRoute(pathname);
    if (fast) void serveWithFetchHandler(fast, req, res, origin);
    else void handleWithNext(req, res);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(env.port, env.hostname, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.port;
  console.log(`burrow: listening on http://localhost:${port} (${describeDb(dbConfig)})`);

  installShutdown(server, async () => {
    await app.close();
    await closeDb();
  });
}

/** SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the database. */
function installShutdown(server: http.Server, closeResources: () => Promise<void>): void {
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`burrow: ${signal} received, finishing in-flight requests`);
    const force = setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(async () => {
      clearTimeout(force);
      try {
        await closeResources();
        console.log("burrow: stopped");
        process.exit(0);
      } catch (error) {
        console.error("burrow: error while closing", error);
        process.exit(1);
      }
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof MigrationError) {
    console.error(`burrow: ${error.message}`);
  } else if (error instanceof Error && "code" in error && error.code === "EADDRINUSE") {
    console.error(`burrow: port ${process.env.PORT ?? 3000} is already in use; set PORT to another port.`);
  } else {
    console.error("burrow: could not start:", error);
  }
  process.exit(1);
});
