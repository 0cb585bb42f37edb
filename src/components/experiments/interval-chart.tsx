import type { ResultRow } from "./verdict";
import { intervalOf } from "./verdict";

/** Each variant's interval of the relative change against control, on one axis through 0. */
export function IntervalChart({ rows }: { rows: readonly ResultRow[] }) {
  const intervals = rows.map((row) => ({ key: row.key, interval: intervalOf(row) }));
  const shown = intervals.filter((entry): entry is { key: string; interval: [number, number] } => entry.interval !== null);
  if (shown.length === 0) return <p className="text-sm text-gray-600">No intervals yet: each variant needs at least 50 exposures (and, for a conversion, 5 conversions).</p>;
  const extent = Math.max(0.05, ...shown.flatMap(({ interval }) => interval.map(Math.abs)));
  const width = 600;
  const label = 110;
  const row = 28;
  const x = (value: number) => label + ((value + extent) / (2 * extent)) * (width - label - 20);
  const height = intervals.length * row + 24;
  return (
    <svg viewBox={`0 0 ${width} ${height}`} className="w-full max-w-3xl" role="img" aria-label="Intervals of the change against control">
      <line x1={x(0)} x2={x(0)} y1={0} y2={height - 18} stroke="#9ca3af" strokeDasharray="3 3" />
      {intervals.map(({ key, interval }, i) => {
        const y = i * row + 16;
        const color = interval && interval[0] > 0 ? "#059669" : interval && interval[1] < 0 ? "#dc2626" : "#6b7280";
        return (
          <g key={key} data-testid="interval" data-variant={key}>
            <text x={0} y={y + 4} fontSize="12" fill="#111827">
              {key}
            </text>
            {interval ? (
              <>
                <line x1={x(interval[0])} x2={x(interval[1])} y1={y} y2={y} stroke={color} strokeWidth={6} strokeLinecap="round" />
                <circle cx={x((interval[0] + interval[1]) / 2)} cy={y} r={4} fill="white" stroke={color} strokeWidth={2} />
              </>
            ) : (
              <text x={x(0) + 6} y={y + 4} fontSize="11" fill="#6b7280">
                not enough data
              </text>
            )}
          </g>
        );
      })}
      {[-extent, 0, extent].map((tick) => (
        <text key={tick} x={x(tick)} y={height - 4} fontSize="11" fill="#6b7280" textAnchor="middle">
          {`${tick > 0 ? "+" : ""}${(tick * 100).toFixed(0)}%`}
        </text>
      ))}
    </svg>
  );
}
