/**
 * Computed insight results, kept in memory per process for a short time: a dashboard
 * opened by several people, or reloaded, is computed once a minute at most. Bounded by
 * entries and by weight (data points), least recently used first out; a computation
 * already running for a key is shared instead of started twice.
 */

export interface CacheLimits {
  /** How long a result is served: PostHog refreshes dashboards on a similar short clock. */
  ttlMs: number;
  maxEntries: number;
  /** Sum of the entries' weights (the caller's measure of size, e.g. data points). */
  maxWeight: number;
}

export const INSIGHT_CACHE_LIMITS: CacheLimits = { ttlMs: 60_000, maxEntries: 500, maxWeight: 2_000_000 };

export interface Cached<T> {
  value: T;
  computedAt: Date;
  /** Served from the cache rather than computed for this call. */
  cached: boolean;
}

/** How a call may use the cache: `force` recomputes, `blocking` uses a fresh entry or computes, `cache_only` never computes. */
export type CacheMode = "force" | "blocking" | "cache_only";

interface Entry<T> {
  value: T;
  computedAt: Date;
  weight: number;
}

export class ResultCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly running = new Map<string, Promise<Entry<T>>>();
  private weight = 0;

  constructor(
    private readonly limits: CacheLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** A fresh entry (and marks it recently used), or null. */
  peek(key: string): Cached<T> | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (this.clock() - entry.computedAt.getTime() >= this.limits.ttlMs) {
      this.remove(key);
      return null;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { value: entry.value, computedAt: entry.computedAt, cached: true };
  }

  /** The cached value, or `compute`'s (then kept); `cache_only` answers null rather than computing. */
  async get(key: string, mode: CacheMode, compute: () => Promise<{ value: T; weight: number }>): Promise<Cached<T> | null> {
    if (mode !== "force") {
      const hit = this.peek(key);
      if (hit) return hit;
      if (mode === "cache_only") return null;
    }
    let pending = this.running.get(key);
    if (!pending) {
      pending = compute().then(({ value, weight }) => {
        const entry = { value, weight, computedAt: new Date(this.clock()) };
        this.store(key, entry);
        return entry;
      });
      const shared = pending.finally(() => this.running.delete(key));
      this.running.set(key, shared);
      pending = shared;
    }
    const entry = await pending;
    return { value: entry.value, computedAt: entry.computedAt, cached: false };
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  private store(key: string, entry: Entry<T>): void {
    this.remove(key);
    // Too big to keep at all: computed, answered, not cached.
    if (entry.weight > this.limits.maxWeight) return;
    this.entries.set(key, entry);
    this.weight += entry.weight;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.limits.maxEntries && this.weight <= this.limits.maxWeight) break;
      this.remove(oldest);
    }
  }
}

/** JSON with object keys sorted at every level (undefined left out): equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
