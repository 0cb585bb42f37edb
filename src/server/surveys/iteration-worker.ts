/**
 * The recurring surveys' schedule in the background: a pass at start and then every hour, as
 * PostHog's periodic `update_survey_iteration` task (iterations are whole days, so an hour
 * late at most).
 */
import type { Database } from "@/server/db";
import { advanceSurveyIterations } from "./service";

const WORKER_KEY = Symbol.for("burrow.surveyIterations");
type Worker = { timer: NodeJS.Timeout; running: Promise<unknown> | null; stopped: boolean };
type WorkerHolder = { [WORKER_KEY]?: Worker };

const PASS_INTERVAL_MS = 60 * 60_000;

export function startSurveyIterations(db: Database, options: { intervalMs?: number } = {}): void {
  const holder = globalThis as WorkerHolder;
  if (holder[WORKER_KEY] && !holder[WORKER_KEY].stopped) return;
  const pass = () => {
    if (worker.running || worker.stopped) return;
    worker.running = advanceSurveyIterations(db)
      .catch((error) => {
        if (!worker.stopped) console.error("burrow: advancing recurring surveys failed", error);
      })
      .finally(() => (worker.running = null));
  };
  const worker: Worker = { timer: setInterval(pass, options.intervalMs ?? PASS_INTERVAL_MS), running: null, stopped: false };
  worker.timer.unref();
  holder[WORKER_KEY] = worker;
  pass();
}

/** Stops the schedule, waiting for a pass under way. */
export async function stopSurveyIterations(): Promise<void> {
  const holder = globalThis as WorkerHolder;
  const worker = holder[WORKER_KEY];
  if (!worker) return;
  worker.stopped = true;
  clearInterval(worker.timer);
  await worker.running;
  if (holder[WORKER_KEY] === worker) delete holder[WORKER_KEY];
}
