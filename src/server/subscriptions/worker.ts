/**
 * Subscriptions in the background: a pass soon after start (server.ts staggers the first ones) and then every minute sends what is due
 * (schedules are minutes apart at the finest, and a pass is never more than a minute late).
 */
import type { Database } from "@/server/db";
import { startPeriodicPass, stopPeriodicPass, type PassStart } from "@/server/periodic-pass";
import { runDueSubscriptions } from "./service";

const KEY = Symbol.for("burrow.subscriptionDeliveries");

export function startSubscriptionDeliveries(db: Database, options: PassStart & { intervalMs?: number } = {}): void {
  startPeriodicPass(KEY, options.intervalMs ?? 60_000, "sending due subscriptions", (stopping) => runDueSubscriptions(db, { shouldStop: stopping }), options);
}

/** Stops the passes, waiting for the one under way. */
export function stopSubscriptionDeliveries(): Promise<void> {
  return stopPeriodicPass(KEY);
}
