/**
 * Alerts' scheduled checks in the background: a pass soon after start (server.ts staggers the first ones) and then every minute, taking
 * every alert whose next_check_at has come (each alert's `calculation_interval` sets the next
 * one). Checks run one after another, each a query on the analytical connections and a few
 * short writes, so the embedded database is never held for long.
 */
import type { Database } from "@/server/db";
import { startPeriodicPass, stopPeriodicPass, type PassStart } from "@/server/periodic-pass";
import { checkDueAlerts, type PassOptions } from "./service";

const KEY = Symbol.for("burrow.alertChecks");

export function startAlertChecks(db: Database, options: PassOptions & PassStart & { intervalMs?: number } = {}): void {
  startPeriodicPass(KEY, options.intervalMs ?? 60_000, "checking alerts", (stopping) => checkDueAlerts(db, stopping, options), options);
}

/** Stops the schedule, waiting for a pass under way. */
export function stopAlertChecks(): Promise<void> {
  return stopPeriodicPass(KEY);
}
