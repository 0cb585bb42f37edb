/**
 * The world map's colour scale: five steps of one hue from the smallest to the largest
 * country's value, with round bounds for the legend; countries without a value are grey.
 */

export const NO_VALUE_COLOR = "#e5e7eb";
/** Light to dark indigo (Tailwind's indigo 200–700): even the lightest step stands apart from the grey of no data. */
export const MAP_STEPS = ["#c7d2fe", "#a5b4fc", "#818cf8", "#6366f1", "#4338ca"];

export interface MapScaleStop {
  /** Values above `from` up to `to` (inclusive) take `color`. */
  from: number;
  to: number;
  color: string;
}

export interface MapScale {
  colorOf(value: number | undefined): string;
  stops: MapScaleStop[];
}

/** The smallest step (1, 2, 2.5, 5 or 10 times a power of ten; whole numbers from 1 up) at least `value`. */
export function niceStep(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of power >= 10 ? [1, 2, 2.5, 5, 10] : [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/**
 * Equal steps of a nice width covering the largest value, fewer when the values are small
 * whole numbers (three countries of 1, 2 and 3 get three steps, not five).
 */
export function mapScale(values: readonly number[]): MapScale {
  const positive = values.filter((value) => Number.isFinite(value) && value > 0);
  const max = positive.length === 0 ? 0 : Math.max(...positive);
  const count = Math.max(1, Math.min(MAP_STEPS.length, Math.ceil(max)));
  const width = niceStep(max / count);
  // With fewer steps, the darker end of the palette, so the largest value reads as most.
  const colors = MAP_STEPS.slice(MAP_STEPS.length - count);
  const stops = colors.map((color, step) => ({ from: step * width, to: (step + 1) * width, color }));
  return {
    stops,
    colorOf(value) {
      if (value === undefined || !Number.isFinite(value) || value <= 0) return NO_VALUE_COLOR;
      const step = Math.min(count - 1, Math.max(0, Math.ceil(value / width) - 1));
      return colors[step]!;
    },
  };
}
