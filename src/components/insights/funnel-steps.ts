/**
 * Funnel results (PostHog's FunnelsQuery shapes) turned into what the tile draws: per step
 * its count, conversion from the first and from the previous step, the drop-off and the
 * median time to convert; breakdowns as one step list per value; time-to-convert bins.
 */
import { breakdownName } from "./series-names";
import { isObject } from "@/server/input/json-object";

/** One step object of a `steps` result. */
export interface FunnelStep {
  name: string;
  custom_name?: string | null;
  order: number;
  count: number;
  average_conversion_time: number | null;
  median_conversion_time: number | null;
  breakdown?: unknown;
  breakdown_value?: unknown;
}

export interface FunnelStepView {
  /** 0-based step index (FunnelsActorsQuery's funnelStep is this + 1). */
  index: number;
  name: string;
  count: number;
  /** Share of the first step's persons who reached this step, 0..1. */
  fromFirst: number;
  /** Share of the previous step's persons who reached this one (1 for the first step). */
  fromPrevious: number;
  /** Persons of the previous step who did not reach this one. */
  dropped: number;
  medianSeconds: number | null;
  averageSeconds: number | null;
}

export interface FunnelBreakdownView {
  /** The breakdown value in words; "" without breakdown. */
  label: string;
  /** The raw `breakdown_value` (for the actors query), undefined without breakdown. */
  value: unknown;
  steps: FunnelStepView[];
}

function isStep(value: unknown): value is FunnelStep {
  return isObject(value) && typeof value.count === "number" && typeof value.name === "string";
}

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

/** The steps as drawn: percentages from the first and the previous step. */
export function funnelStepViews(steps: readonly FunnelStep[]): FunnelStepView[] {
  const first = steps[0]?.count ?? 0;
  return steps.map((step, index) => {
    const previous = index === 0 ? step.count : steps[index - 1]!.count;
    return {
      index,
      name: step.custom_name || step.name,
      count: step.count,
      fromFirst: ratio(step.count, first),
      fromPrevious: index === 0 ? (step.count > 0 ? 1 : 0) : ratio(step.count, previous),
      dropped: index === 0 ? 0 : Math.max(0, previous - step.count),
      medianSeconds: step.median_conversion_time ?? null,
      averageSeconds: step.average_conversion_time ?? null,
    };
  });
}

/**
 * A `steps` result as one list per breakdown value: without breakdown it is an array of
 * steps (one list, label ""); with one, an array of step arrays. Null when the result has
 * neither shape. An empty result (no persons) is an empty list.
 */
export function funnelBreakdownViews(results: unknown): FunnelBreakdownView[] | null {
  if (!Array.isArray(results)) return null;
  if (results.length === 0) return [];
  if (results.every(isStep)) return [{ label: "", value: undefined, steps: funnelStepViews(results) }];
  if (!results.every((inner) => Array.isArray(inner) && inner.length > 0 && inner.every(isStep))) return null;
  return (results as FunnelStep[][]).map((steps) => {
    const first = steps[0]!;
    return { label: breakdownName(first.breakdown ?? first.breakdown_value), value: first.breakdown_value, steps: funnelStepViews(steps) };
  });
}

/** "66.7%", "100%", "0%": one decimal, dropped when whole. */
export function formatPercent(share: number): string {
  const percent = Math.round(share * 1000) / 10;
  return `${Number.isInteger(percent) ? percent.toFixed(0) : percent.toFixed(1)}%`;
}

/** A duration in seconds as its two largest units: "45s", "2h", "1h 30m", "3d 4h". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "–";
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const units: [string, number][] = [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ];
  let rest = Math.round(seconds);
  const parts: string[] = [];
  for (const [unit, size] of units) {
    const amount = Math.floor(rest / size);
    rest -= amount * size;
    if (parts.length > 0 || amount > 0) parts.push(`${amount}${unit}`);
    if (parts.length === 2) break;
  }
  return parts.filter((part, index) => index === 0 || !part.startsWith("0")).join(" ");
}

export interface TimeToConvertBin {
  /** Bin start in seconds. */
  from: number;
  /** The next bin's start (the last bin: its start plus the previous width). */
  to: number;
  count: number;
  label: string;
}

/** A `time_to_convert` result's `bins` ([start seconds, persons]) as labelled histogram bars; null if not that shape. */
export function timeToConvertBins(results: unknown): { average: number | null; bins: TimeToConvertBin[] } | null {
  if (!isObject(results) || !Array.isArray(results.bins)) return null;
  const pairs = results.bins.filter((bin): bin is [number, number] => Array.isArray(bin) && typeof bin[0] === "number" && typeof bin[1] === "number");
  const bins = pairs.map(([from, count], index) => {
    const next = pairs[index + 1]?.[0];
    const width = next !== undefined ? next - from : index > 0 ? from - pairs[index - 1]![0] : 0;
    const to = from + width;
    return { from, to, count, label: formatDuration(from) };
  });
  const average = typeof results.average_conversion_time === "number" ? results.average_conversion_time : null;
  return { average, bins };
}
