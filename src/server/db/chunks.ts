/**
 * Background work on the embedded database in chunks short enough for requests to slip in
 * between (issue 31: a worker holds the one connection ~10 ms at a time, never more than
 * ~50 ms). A chunk's size follows what the last ones took: a statement over persons with
 * heavy conditions gets fewer rows than a plain delete, and a loaded machine fewer than an
 * idle one.
 */

/** What a worker aims one chunk's hold at: well under the bound, so that a machine busy elsewhere (a chunk taking several times its usual) still keeps to it. */
export const CHUNK_TARGET_MS = 10;

export class ChunkSizer {
  private current: number;
  /** Milliseconds per row, smoothed: one chunk slowed by the machine (another process, a GC) does not collapse the next ones. */
  private perRow: number | null = null;

  constructor(
    initial: number,
    private readonly min: number,
    private readonly max: number,
    private readonly targetMs = CHUNK_TARGET_MS,
  ) {
    this.current = Math.max(min, Math.min(max, Math.round(initial)));
  }

  /** Rows (or ids) for the next chunk. */
  get size(): number {
    return this.current;
  }

  /**
   * The last chunk of `rows` held the connection `ms`: the next one aims at the target by the
   * smoothed cost per row (growing at most twofold at once).
   */
  took(ms: number, rows = this.current): void {
    if (rows <= 0) return;
    const sample = Math.max(ms, 0.1) / rows;
    this.perRow = this.perRow === null ? sample : 0.7 * this.perRow + 0.3 * sample;
    const wanted = this.targetMs / this.perRow;
    const next = Math.min(this.current * 2, wanted);
    this.current = Math.max(this.min, Math.min(this.max, Math.round(next)));
  }
}

/** Lets what queued for the connection (requests, ingestion) go first before the worker's next chunk. */
export function yieldToRequests(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
