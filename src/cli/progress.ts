/**
 * Progress of a long CLI command on stderr (stdout stays for the result, one JSON object
 * with --json): a bar redrawn in place on a terminal, otherwise a plain line at most once a
 * second and at the end, which reads well in logs and CI.
 */
import type { MoveProgress } from "@/server/db/events/move-to-clickhouse";

const BAR_WIDTH = 30;
const LINE_INTERVAL_MS = 1_000;

interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

function describe({ moved, total }: MoveProgress, startedAt: number, movedAtStart: number, time: number): { percent: number; counts: string; rate: string } {
  const percent = total === 0 ? 100 : Math.floor((moved / total) * 100);
  const seconds = (time - startedAt) / 1000;
  const perSecond = seconds > 0 ? Math.round((moved - movedAtStart) / seconds) : 0;
  return {
    percent,
    counts: `${moved.toLocaleString("en")}/${total.toLocaleString("en")} events`,
    rate: `${perSecond.toLocaleString("en")} events/s`,
  };
}

export function moveProgressReporter(output: Output, now: () => number = Date.now) {
  const startedAt = now();
  let movedAtStart: number | null = null;
  let lastLine = Number.NEGATIVE_INFINITY;
  let last: MoveProgress | null = null;
  let drawn = false;
  return {
    update: (progress: MoveProgress) => {
      movedAtStart ??= progress.moved;
      last = progress;
      const time = now();
      const { percent, counts, rate } = describe(progress, startedAt, movedAtStart, time);
      if (output.isTTY) {
        const filled = Math.round((percent / 100) * BAR_WIDTH);
        const line = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${String(percent).padStart(3)}%  ${counts}  ${rate}`;
        output.write(`\r${line.slice(0, (output.columns ?? 120) - 1)}\x1b[K`);
        drawn = true;
        return;
      }
      if (time - lastLine < LINE_INTERVAL_MS && progress.moved < progress.total) return;
      lastLine = time;
      output.write(`moving events: ${counts} (${percent}%), ${rate}\n`);
    },
    /** Ends the bar's line (the final numbers stay visible). */
    end: () => {
      if (drawn && last) output.write("\n");
    },
  };
}
