import { cn } from "./cn";

export interface SparklineProps {
  data: readonly number[];
  /** What the line shows, for screen readers: "Visitors per day". Without it the line is decorative. */
  label?: string;
  /** A Tailwind text colour: the line uses currentColor. */
  className?: string;
  testId?: string;
  /** How the screen-reader summary writes a value ("1m 05s"); plain numbers without it. */
  format?: (value: number) => string;
}

const WIDTH = 100;
const HEIGHT = 28;

/**
 * A small line of a series' shape, scaled to its own range, with a faint area under it.
 * An SVG without a charting library, so it costs nothing to put in every card.
 */
export function Sparkline({ data, label, className, testId, format = String }: SparklineProps) {
  const max = Math.max(0, ...data);
  const min = Math.min(0, ...data);
  const span = max - min || 1;
  const step = data.length > 1 ? WIDTH / (data.length - 1) : 0;
  // A one-point series is drawn flat across the width.
  const values = data.length === 1 ? [data[0]!, data[0]!] : data;
  const stepX = data.length === 1 ? WIDTH : step;
  const points = values.map((value, index) => `${(index * stepX).toFixed(2)},${(HEIGHT - 1 - ((value - min) / span) * (HEIGHT - 2)).toFixed(2)}`);
  // A summary, not every point: a 90-day line would be read out as 90 numbers.
  const described = label && data.length > 0 ? `${label}: from ${format(data[0]!)} to ${format(data[data.length - 1]!)}, highest ${format(max)}` : label;
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      preserveAspectRatio="none"
      className={cn("h-7 w-full overflow-visible text-brand-600", className)}
      role={described ? "img" : undefined}
      aria-label={described}
      aria-hidden={described ? undefined : true}
      data-testid={testId}
      data-points={data.length}
    >
      {values.length > 1 && (
        <>
          <polygon points={`0,${HEIGHT} ${points.join(" ")} ${WIDTH},${HEIGHT}`} fill="currentColor" opacity={0.08} />
          <polyline points={points.join(" ")} fill="none" stroke="currentColor" strokeWidth={1.5} strokeLinejoin="round" strokeLinecap="round" vectorEffect="non-scaling-stroke" />
        </>
      )}
    </svg>
  );
}
