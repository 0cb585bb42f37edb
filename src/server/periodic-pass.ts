/**
 * A background pass on a timer (survey iterations, recording upkeep): one at start (or
 * `firstPassAfterMs` later), then one every `intervalMs`, never two at once, and a graceful
 * stop that waits for the pass under way. Kept on globalThis under `key`: the custom server's
 * and Next's copies of a module must find the same timer.
 */
type PassState = { timer: NodeJS.Timeout; first: NodeJS.Timeout | null; running: Promise<unknown> | null; stopped: boolean; again: boolean; run: () => void };

export interface PassStart {
  /**
   * The first pass this long after the start instead of at once (the server staggers its
   * workers' first passes so that a freshly started server's first requests, and the
   * embedded database's one connection, are not queued behind all of them at once). A kick
   * before then runs a pass at once.
   */
  firstPassAfterMs?: number;
}
type Holder = Record<symbol, PassState | undefined>;

/** Starts the passes (a second start while running does nothing). `pass` gets whether a stop was asked, to end early between chunks. */
export function startPeriodicPass(key: symbol, intervalMs: number, label: string, pass: (stopping: () => boolean) => Promise<unknown>, start: PassStart = {}): void {
  const holder = globalThis as unknown as Holder;
  if (holder[key] && !holder[key].stopped) return;
  const run = () => {
    if (state.running || state.stopped) return;
    state.running = pass(() => state.stopped)
      .catch((error: unknown) => {
        if (!state.stopped) console.error(`burrow: ${label} failed`, error);
      })
      .finally(() => {
        state.running = null;
        if (state.again && !state.stopped) {
          state.again = false;
          run();
        }
      });
  };
  const state: PassState = { timer: setInterval(run, intervalMs), first: null, running: null, stopped: false, again: false, run };
  state.timer.unref();
  holder[key] = state;
  const delay = start.firstPassAfterMs ?? 0;
  if (delay <= 0) return run();
  state.first = setTimeout(run, delay);
  state.first.unref();
}

/** A pass now rather than at the next tick (work was just added); during a pass, one more right after it. Nothing when not started. */
export function kickPeriodicPass(key: symbol): void {
  const state = (globalThis as unknown as Holder)[key];
  if (!state || state.stopped) return;
  if (state.running) state.again = true;
  else state.run();
}

/** Stops the passes, waiting for the one under way. */
export async function stopPeriodicPass(key: symbol): Promise<void> {
  const holder = globalThis as unknown as Holder;
  const state = holder[key];
  if (!state) return;
  state.stopped = true;
  clearInterval(state.timer);
  if (state.first) clearTimeout(state.first);
  await state.running;
  if (holder[key] === state) delete holder[key];
}
