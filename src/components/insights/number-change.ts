/**
 * The number display's change against the previous period, as analysts read it: up or down
 * by a percentage of the previous value, or "from 0" when there was nothing before.
 */

export interface PeriodChange {
  direction: "up" | "down" | "flat";
  /** The change as a share of the previous value (0.25 = 25 %); null when the previous value was 0. */
  ratio: number | null;
  /** "↑ 25%", "↓ 12.5%", "↑ from 0", "No change". */
  text: string;
}

const percent = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });

export function periodChange(current: number, previous: number): PeriodChange {
  if (current === previous) return { direction: "flat", ratio: previous === 0 ? null : 0, text: "No change" };
  const direction = current > previous ? "up" : "down";
  const arrow = direction === "up" ? "↑" : "↓";
  if (previous === 0) return { direction, ratio: null, text: `${arrow} from 0` };
  const ratio = (current - previous) / Math.abs(previous);
  return { direction, ratio, text: `${arrow} ${percent.format(Math.abs(ratio))}` };
}
