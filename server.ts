/**
 * Burrow's production server (`npm start`): opens and migrates the database, then serves
 * the public hot paths itself and hands everything else to Next.
 */
import http from "node:http";
import type { Socket } from "node:net";
import next from "next";
import { ConfigError, dbConfigFromEnv, describeDb, type DbConfig } from "@/server/db/config";
import { openDatabase } from "@/server/db/client";
import { describeEventStore, eventStoreConfigFromEnv, type EventStoreConfig } from "@/server/db/events/config";
import { closeDb, registerDb, type Database } from "@/server/db";
import { startAlertChecks, stopAlertChecks } from "@/server/alerts/worker";
import { startCohortWorker, stopCohortWorker } from "@/server/cohorts/worker";
import { startBatchExports, stopBatchExports } from "@/server/batch-exports/service";
import { deliveryOptionsFromEnv, startDestinationWorker, stopDestinationWorker } from "@/server/destinations/service";
import { emailSettingsFromEnv } from "@/server/email/service";
import { migrate, MigrationError } from "@/server/db/migrate";
import { authSecret } from "@/server/auth/service";
import { holdReadiness, warmUp } from "@/server/health/service";
import { serverEnvFrom } from "@/server/env";
import { matchFastRoute } from "@/server/http/fast-routes";
import { isUnknownRestPath } from "@/server/http/rest/routes";
import { drainIngestion } from "@/server/ingestion/service";
import { startPersonDeletions, stopPersonDeletions } from "@/server/persons/deletion-worker";
import { startRecordingUpkeep, stopRecordingUpkeep } from "@/server/recordings/budget";
import { startSubscriptionDeliveries, stopSubscriptionDeliveries } from "@/server/subscriptions/worker";
import { startSurveyIterations, stopSurveyIterations } from "@/server/surveys/iteration-worker";
import { serveRaw } from "@/server/http/node-adapter";
import { holdBodyTo, nextBodyLimitFor } from "@/server/http/next-body-limit";
import { NextContexts } from "@/server/http/next-contexts";
import { setSecurityHeaders } from "@/server/http/security-headers";

const SHUTDOWN_GRACE_MS = 10_000;
// The timed workers' first passes: from 10 s after ready, 2 s apart. All at once, right after
// ready, they queued a fresh server's first requests (on the embedded database, its one
// connection) behind them; what they recover (runs a crash left, alerts and deliveries that
// came due while stopped) is taken seconds later instead.
const FIRST_PASSES_AFTER_MS = 10_000;
const FIRST_PASSES_APART_MS = 2_000;
const firstPassAfter = (turn: number) => ({ firstPassAfterMs: FIRST_PASSES_AFTER_MS + turn * FIRST_PASSES_APART_MS });

async function main(): Promise<void> {
  // Everything the server writes (the embedded database, the session secret, the lock) is
  // for this user alone.
  process.umask(0o077);
  keepServingWithoutLogReader();
  const env = serverEnvFrom();
  const dbConfig = dbConfigFromEnv();
  const eventStoreConfig = eventStoreConfigFromEnv();
  // Destinations' settings and the outbound allowlist: a typo stops start-up here, not each delivery later.
  deliveryOptionsFromEnv();
  emailSettingsFromEnv();
  // The database opens (the embedded one in a thread of its own, about a second) while this
  // thread prepares Next below, once the settings are accepted (a refusal is then the only
  // output); requests wait for it, and /_ready says 503 until warmed up.
  let accepted!: () => void;
  const settingsAccepted = new Promise<void>((resolve) => (accepted = resolve));
  const opening = openMigrated(dbConfig, eventStoreConfig, accepted);
  // Thrown where it is awaited, below (it may fail before then).
  opening.catch(() => undefined);
  registerDb(opening);
  holdReadiness();

  // Listen first, so that with PORT=0 the real port is known before Next and next-auth
  // read SITE_URL; requests that arrive before Next is ready wait for it.
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(env.port, env.hostname, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.port;
  const siteUrl = serverEnvFrom({ ...process.env, PORT: String(port) }).siteUrl;
  process.env.SITE_URL ??= siteUrl;
  // next-auth reads this and its secret (below) from the environment.
  process.env.NEXTAUTH_URL ??= siteUrl;
  // No anonymous usage reports to Vercel from a privacy tool (scripts/build.mjs does the same for the build).
  process.env.NEXT_TELEMETRY_DISABLED ??= "1";

  let ready!: () => void;
  const prepared = new Promise<void>((resolve) => (ready = resolve));
  const app = next({ dev: false, dir: process.cwd(), hostname: env.hostname, port, httpServer: server });
  let handleWithNext: ReturnType<typeof app.getRequestHandler> | undefined;
  // Next's request contexts cost every promise of the hot paths while on: off between its requests.
  const nextContexts = new NextContexts();
  server.on("request", (req, res) => {
    setSecurityHeaders(res);
    const queryAt = req.url?.indexOf("?") ?? -1;
    const pathname = queryAt === -1 ? (req.url ?? "/") : req.url!.slice(0, queryAt);
    const fast = matchFastRoute(pathname);
    if (fast) return void serveRaw(fast, req, res);
    // Next reads bodies whole and unbounded before our routes authenticate: bound them first.
    if (!holdBodyTo(req, res, nextBodyLimitFor(pathname, req.headers["content-type"]))) return;
    nextContexts.begin(res);
    // The management API's catch-all routes would answer these with an empty 404.
    if (isUnknownRestPath(pathname)) void prepared.then(() => app.render404(req, res));
    else if (handleWithNext) void handleWithNext(req, res);
    else void prepared.then(() => handleWithNext!(req, res));
  });
  await Promise.race([settingsAccepted, opening]);
  // Kept in DATA_DIR, which the database's lock has just shown writable.
  process.env.NEXTAUTH_SECRET ??= authSecret();
  const preparing = app.prepare();
  preparing.catch(() => undefined);
  const db = await opening;
  // Planner statistics and the caches the hot paths read, while Next finishes preparing.
  const warm = warmUp(db);
  await preparing;
  handleWithNext = app.getRequestHandler();
  nextContexts.disableWhenIdle();
  ready();
  // Said once /_ready would say so too (tests and scripts wait for this line).
  await warm;
  console.log(`burrow: listening on ${siteUrl} (${describeDb(dbConfig)}, ${describeEventStore(eventStoreConfig)})`);
  // The background workers start once warm (warming has the embedded database to itself):
  // deleted persons' events (resuming any deletion a crash left unfinished), and dynamic
  // cohorts' members (new and changed ones at once; those due, or a crash left calculating, from the first sweep).
  startPersonDeletions(db);
  startCohortWorker(db, firstPassAfter(5));
  // Events waiting in the destinations' outbox (those a crash left undelivered too).
  startDestinationWorker(db);
  // Recordings past retention or the byte budget, hourly (a project that stopped recording gets no upkeep from ingestion).
  startRecordingUpkeep(db, firstPassAfter(3));
  // Recurring surveys move to their next iteration (and stop after the last).
  startSurveyIterations(db, firstPassAfter(4));
  // Insight alerts whose check is due (each on its calculation_interval).
  startAlertChecks(db, firstPassAfter(0));
  // Subscriptions that are due: their charts rendered and sent, each moved to its next date.
  startSubscriptionDeliveries(db, firstPassAfter(1));
  // Batch exports: a run per completed interval, and the runs a crash left (resumed or redone).
  startBatchExports(db, firstPassAfter(2));

  installShutdown(server, async () => {
    await drainIngestion();
    await stopDestinationWorker();
    await stopSurveyIterations();
    await stopAlertChecks();
    await stopSubscriptionDeliveries();
    await stopBatchExports();
    await stopCohortWorker();
    await stopPersonDeletions();
    await stopRecordingUpkeep();
    await app.close();
    await closeDb();
  });
}

/** The database, opened and migrated (closed again when a migration fails). */
async function openMigrated(dbConfig: DbConfig, eventStoreConfig: EventStoreConfig, onAccepted: () => void): Promise<Database> {
  const db = await openDatabase(dbConfig, eventStoreConfig, onAccepted);
  try {
    const applied = await migrate(db.sql);
    if (applied.length > 0) console.log(`burrow: applied migrations ${applied.join(", ")}`);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/**
 * A reader of the server's output that goes away (`npm start | tee log`, and the tee killed)
 * must not take the server with it: its EPIPE, uncaught, was logged to the same dead pipe, and
 * that again, at full CPU for ever, and SIGTERM no longer stopped it. Log lines are dropped.
 */
function keepServingWithoutLogReader(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
    });
  }
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
