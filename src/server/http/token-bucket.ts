/**
 * In-process token buckets, one per key: `capacity` requests at once, refilled at
 * `perMinute` a minute. Buckets that have refilled completely are forgotten, so memory
 * stays bounded by the keys active in the last few minutes.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    private readonly capacity: number,
    perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Takes a token for `key`; returns 0 if granted, else the seconds until one is available. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.refillPerMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.buckets.set(key, bucket);
      this.sweep(now);
      return 0;
    }
    this.buckets.set(key, bucket);
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000));
  }

  private lastSweep = 0;
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const full = this.capacity / this.refillPerMs;
    for (const [key, bucket] of this.buckets) if (now - bucket.at >= full) this.buckets.delete(key);
  }
}
