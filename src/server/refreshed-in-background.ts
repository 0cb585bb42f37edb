/**
 * Values the SDK hot paths (/decide, /flags, remote config) read on every request and that
 * rarely change, such as a project's recording settings or whether one of its surveys runs.
 * They are answered from memory. Past `ttlMs` the old value is still answered while a single
 * read refreshes it in the background. No request waits for the database, which on the
 * embedded one means waiting behind whatever holds its one connection (a /decide p50 of 1.9 ms
 * became 450 ms once each second's first request, and every request behind it, waited on a
 * read). Only a key's first read waits, and concurrent first reads share it.
 */
export class RefreshedInBackground<K, V> {
  private readonly entries = new Map<K, { value: V; at: number; refreshing: boolean }>();
  private readonly loading = new Map<K, Promise<V>>();
  /** Bumped by `forget`: a read that began before it does not put back what it read. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.entries.get(key);
    if (!hit) return this.read(key, load);
    if (this.now() - hit.at >= this.ttlMs && !hit.refreshing) {
      hit.refreshing = true;
      // A failed refresh keeps the old value for another period (the next one tries again).
      this.read(key, load).catch(() => {
        hit.refreshing = false;
        hit.at = this.now();
      });
    }
    return Promise.resolve(hit.value);
  }

  /** After a write here: the next request reads the key again (and waits for it). */
  forget(key: K): void {
    this.generation++;
    this.entries.delete(key);
    this.loading.delete(key);
  }

  /** After a write here that knows the new value. */
  set(key: K, value: V): void {
    this.forget(key);
    this.entries.set(key, { value, at: this.now(), refreshing: false });
  }

  private read(key: K, load: () => Promise<V>): Promise<V> {
    const existing = this.loading.get(key);
    if (existing) return existing;
    const generation = this.generation;
    const done = () => {
      if (this.loading.get(key) === pending) this.loading.delete(key);
    };
    const pending: Promise<V> = load().then(
      (value) => {
        done();
        if (generation === this.generation) this.entries.set(key, { value, at: this.now(), refreshing: false });
        return value;
      },
      (error: unknown) => {
        done();
        throw error;
      },
    );
    this.loading.set(key, pending);
    return pending;
  }
}
