/**
 * Next keeps each request's context in AsyncLocalStorage (three instances after an API route,
 * five after a page, React's among them). On Node 20 an enabled instance hooks every promise the
 * process makes, whoever makes it, and nothing ever disables Next's: after the first page was
 * served, `/capture/` paid 5–10 % of its CPU on PostgreSQL for contexts it never reads (~42 promises a
 * request). So the instances are disabled whenever Next has had no request for a while, and
 * Next's next request enables them again (`run` does that by itself).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { ServerResponse } from "node:http";

/** Long enough for what a request's render does after its response closed (an aborted stream ends its render). */
export const NEXT_IDLE_MS = 2_000;

/**
 * Every instance entered since the last disabling, whoever made it: Next creates its own from a
 * global, React imports the class itself. (This process's own code enters none, nor do its other
 * packages.)
 */
const entered = new Set<AsyncLocalStorage<unknown>>();
let recording = false;

function recordEntered(): void {
  if (recording) return;
  recording = true;
  const { run, enterWith } = AsyncLocalStorage.prototype;
  AsyncLocalStorage.prototype.run = function (this: AsyncLocalStorage<unknown>, store: unknown, callback: (...args: unknown[]) => unknown, ...args: unknown[]) {
    entered.add(this);
    return run.call(this, store, callback, ...args);
  } as typeof run;
  AsyncLocalStorage.prototype.enterWith = function (this: AsyncLocalStorage<unknown>, store: unknown): void {
    entered.add(this);
    enterWith.call(this, store);
  };
}

export class NextContexts {
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly idleMs = NEXT_IDLE_MS) {
    recordEntered();
  }

  /** A request goes to Next: its contexts stay on until it closed and Next was idle for a while. */
  begin(res: ServerResponse): void {
    this.inFlight++;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    res.once("close", () => {
      if (--this.inFlight === 0) this.disableWhenIdle();
    });
  }

  /** Disables the contexts entered so far once Next had no request for the idle time (also after its start-up). */
  disableWhenIdle(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.disable(), this.idleMs);
    this.timer.unref();
  }

  private disable(): void {
    this.timer = null;
    if (this.inFlight > 0) return;
    for (const storage of entered) storage.disable();
    entered.clear();
  }
}
