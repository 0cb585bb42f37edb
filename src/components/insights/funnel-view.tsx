"use client";

import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { funnelStepActors, funnelTrendsActors } from "./actors-query";
import { bucketTick, bucketTitle, intervalOfDays, queryInterval } from "./bucket-dates";
import { axisTick, clickedBucket, colorAt, compactFormat, numberFormat, PointPicker, ResultEmpty, ResultFrame, ResultMismatch, type ChartPoint, type SelectHandler } from "./chart-parts";
import { formatDuration, formatPercent, funnelBreakdownViews, timeToConvertBins, type FunnelBreakdownView, type FunnelStepView } from "./funnel-steps";
import { seriesResults } from "./series-shapes";
import { breakdownName } from "./series-names";

/**
 * A FunnelsQuery's `steps` result: one row per step with a bar as long as the share of the
 * first step that reached it, the count, conversion from the first and from the previous
 * step, the drop-off and the median time from the previous step. With a breakdown, each
 * step has one bar per value (grouped, coloured, with a legend). A step's bar (and its
 * drop-off) is a button listing the persons behind it.
 */
export function FunnelStepsView({ query, results, onSelect }: { query: unknown; results: unknown; onSelect?: SelectHandler }) {
  const kind = "funnel";
  const groups = funnelBreakdownViews(results);
  if (!groups) return <ResultMismatch kind={kind} message="Expected a funnel's steps." />;
  if (groups.length === 0 || groups.every((group) => (group.steps[0]?.count ?? 0) === 0)) return <ResultEmpty kind={kind} title="Nobody entered this funnel" />;
  const breakdown = groups.length > 1 || groups[0]!.label !== "";
  const stepCount = Math.max(...groups.map((group) => group.steps.length));
  const summary = groups
    .map((group) => `${group.label ? `${group.label}: ` : ""}${group.steps.map((step) => `${step.name} ${numberFormat.format(step.count)}`).join(" → ")}`)
    .join("; ");

  return (
    <ResultFrame kind={kind} state="ready" className="overflow-y-auto">
      <ol className="flex flex-col gap-2 py-1" aria-label={`Funnel: ${summary}`} data-testid="funnel-steps">
        {Array.from({ length: stepCount }, (_, index) => {
          const first = groups[0]!.steps[index]!;
          return (
            <li key={index} className="flex flex-col gap-1" data-testid="funnel-step" data-step={index + 1}>
              <div className="flex items-baseline gap-2 text-sm">
                <span className="flex size-5 shrink-0 items-center justify-center rounded-full bg-gray-100 text-xs font-medium text-gray-700" aria-hidden="true">
                  {index + 1}
                </span>
                <span className="min-w-0 flex-1 truncate font-medium text-gray-900" title={first.name}>
                  {first.name}
                </span>
                {!breakdown && <StepFigures step={first} />}
              </div>
              {groups.map((group, groupIndex) => {
                const step = group.steps[index];
                if (!step) return null;
                return (
                  <StepBar
                    key={groupIndex}
                    step={step}
                    group={group}
                    color={breakdown ? colorAt(groupIndex) : colorAt(0)}
                    showFigures={breakdown}
                    onSelect={onSelect && ((dropped) => onSelect({ title: stepTitle(step, group, dropped), source: funnelStepActors(query, index, { dropped, breakdown: breakdown ? group.value : undefined }) }))}
                  />
                );
              })}
              {/* On a phone the header has room for the count and share only: the rest goes under the bar. */}
              {!breakdown && index > 0 && (
                <p className="text-xs text-gray-500 tabular-nums sm:hidden" data-testid="funnel-step-details">
                  {formatPercent(first.fromPrevious)} of previous{first.medianSeconds !== null ? ` · median ${formatDuration(first.medianSeconds)}` : ""}
                </p>
              )}
            </li>
          );
        })}
      </ol>
      {breakdown && (
        <ul className="flex flex-wrap gap-x-3 gap-y-1 pt-1 text-xs text-gray-600" aria-label="Breakdown values">
          {groups.map((group, index) => (
            <li key={index} className="flex items-center gap-1">
              <span className="size-2.5 rounded-sm" style={{ background: colorAt(index) }} aria-hidden="true" />
              {group.label}
            </li>
          ))}
        </ul>
      )}
    </ResultFrame>
  );
}

const stepTitle = (step: FunnelStepView, group: FunnelBreakdownView, dropped: boolean) =>
  `${dropped ? "Dropped off before" : "Reached"} step ${step.index + 1}: ${step.name}${group.label ? ` (${group.label})` : ""}`;

function StepFigures({ step }: { step: FunnelStepView }) {
  return (
    <span className="flex shrink-0 items-baseline gap-2 text-xs text-gray-600 tabular-nums">
      <span className="text-sm font-semibold text-gray-900" data-testid="funnel-step-count">
        {numberFormat.format(step.count)}
      </span>
      <span title="Conversion from the first step" data-testid="funnel-step-from-first">
        {formatPercent(step.fromFirst)}
      </span>
      {step.index > 0 && (
        <span className="hidden sm:inline" title="Conversion from the previous step">
          {formatPercent(step.fromPrevious)} of previous
        </span>
      )}
      {step.medianSeconds !== null && (
        <span className="hidden sm:inline" title="Median time from the previous step">
          median {formatDuration(step.medianSeconds)}
        </span>
      )}
    </span>
  );
}

function StepBar({
  step,
  group,
  color,
  showFigures,
  onSelect,
}: {
  step: FunnelStepView;
  group: FunnelBreakdownView;
  color: string;
  showFigures: boolean;
  onSelect?: (dropped: boolean) => void;
}) {
  const width = `${Math.max(step.fromFirst * 100, step.count > 0 ? 1 : 0)}%`;
  const described = `${step.name}${group.label ? `, ${group.label}` : ""}: ${numberFormat.format(step.count)} persons, ${formatPercent(step.fromFirst)} of the first step${
    step.index > 0 ? `, ${formatPercent(step.fromPrevious)} of the previous` : ""
  }${step.medianSeconds !== null ? `, median ${formatDuration(step.medianSeconds)}` : ""}`;
  const bar = (
    <span className="relative block h-5 w-full overflow-hidden rounded-sm bg-gray-100">
      <span className="absolute inset-y-0 left-0 rounded-sm" style={{ width, background: color }} />
    </span>
  );
  return (
    <div className="flex items-center gap-2">
      {onSelect ? (
        <button
          type="button"
          className="min-w-0 flex-1 cursor-pointer rounded-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
          aria-label={`${described}. List persons`}
          title={described}
          onClick={() => onSelect(false)}
          data-testid="funnel-step-bar"
        >
          {bar}
        </button>
      ) : (
        <span className="min-w-0 flex-1" title={described} data-testid="funnel-step-bar">
          {bar}
        </span>
      )}
      {showFigures && (
        <span className="w-24 shrink-0 text-right text-xs text-gray-600 tabular-nums">
          <span className="font-semibold text-gray-900">{numberFormat.format(step.count)}</span> · {formatPercent(step.fromFirst)}
        </span>
      )}
      {onSelect && step.dropped > 0 && (
        <button
          type="button"
          className="shrink-0 rounded-sm px-1 text-xs text-red-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600"
          aria-label={`${numberFormat.format(step.dropped)} dropped off before ${step.name}${group.label ? ` (${group.label})` : ""}. List persons`}
          onClick={() => onSelect(true)}
          data-testid="funnel-step-dropped"
        >
          −{compactFormat.format(step.dropped)}
        </button>
      )}
    </div>
  );
}

/** `time_to_convert`: a histogram of persons by time taken, and the average. */
export function FunnelTimeView({ results }: { results: unknown }) {
  const kind = "funnel-time";
  const histogram = timeToConvertBins(results);
  if (!histogram) return <ResultMismatch kind={kind} message="Expected time-to-convert bins." />;
  if (histogram.bins.every((bin) => bin.count === 0)) return <ResultEmpty kind={kind} title="Nobody converted in this range" />;
  const summary = `Average time to convert ${histogram.average === null ? "unknown" : formatDuration(histogram.average)}; ${histogram.bins.map((bin) => `${bin.label}: ${bin.count}`).join(", ")}`;
  return (
    <ResultFrame kind={kind} state="ready" className="flex flex-col">
      <p className="text-xs text-gray-600">
        Average time to convert: <span className="font-semibold text-gray-900">{histogram.average === null ? "–" : formatDuration(histogram.average)}</span>
      </p>
      <figure className="min-h-0 flex-1" aria-label={summary} data-testid="insight-chart">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={histogram.bins} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} barCategoryGap={1}>
            <CartesianGrid vertical={false} stroke="#e5e7eb" />
            <XAxis dataKey="label" tick={axisTick} minTickGap={16} />
            <YAxis tick={axisTick} allowDecimals={false} width={36} />
            <Tooltip formatter={(value) => [numberFormat.format(Number(value)), "Persons"]} labelFormatter={(label) => `From ${label}`} />
            <Bar dataKey="count" name="Persons" fill={colorAt(0)} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </figure>
    </ResultFrame>
  );
}

/** Funnel `trends`: conversion % by entrance period, one line per breakdown value. */
export function FunnelTrendsView({ query, results, onSelect }: { query: unknown; results: unknown; onSelect?: SelectHandler }) {
  const kind = "funnel-trends";
  const series = seriesResults(results);
  if (!series) return <ResultMismatch kind={kind} message="Expected conversion rates over time." />;
  if (series.length === 0) return <ResultEmpty kind={kind} title="Nobody entered this funnel" />;
  const labels = series[0]!.labels;
  const names = series.map((item, index) => (item.breakdown_value !== undefined ? breakdownName(item.breakdown_value) : series.length > 1 ? `Series ${index + 1}` : "Conversion"));
  const rows = labels.map((label, bucket) => {
    const row: Record<string, string | number> = { label };
    series.forEach((item, index) => (row[`s${index}`] = item.data[bucket] ?? 0));
    return row;
  });
  const grid: ChartPoint[][] = labels.map((label, bucket) =>
    series.map((item, index) => ({
      description: `${label} · ${names[index]}: ${item.data[bucket] ?? 0}%`,
      selection: {
        title: `Converted, entered ${label}${series.length > 1 ? ` (${names[index]})` : ""}`,
        source: funnelTrendsActors(query, item.days?.[bucket], { breakdown: item.breakdown_value }),
      },
    })),
  );
  const summary = series.map((item, index) => `${names[index]}: ${item.data.map((value) => `${value}%`).join(", ")}`).join("; ");
  const days = series[0]!.days;
  const interval = intervalOfDays(days, queryInterval(query));
  const dayOf = new Map(labels.map((label, bucket) => [label, days?.[bucket] ?? label]));
  return (
    <ResultFrame kind={kind} state="ready">
      <PointPicker grid={grid} label={`Conversion over time. ${summary}`} onSelect={onSelect}>
        {(active) => (
          <figure className="h-full" aria-label={summary} data-testid="insight-chart">
            <ResponsiveContainer width="100%" height="100%">
              <LineChart
                data={rows}
                margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
                onClick={(state) => {
                  const bucket = clickedBucket(state);
                  if (onSelect && bucket !== null && grid[bucket]?.[0]) onSelect(grid[bucket][0].selection);
                }}
              >
                <CartesianGrid vertical={false} stroke="#e5e7eb" />
                <XAxis dataKey="label" tick={axisTick} tickFormatter={(label: string) => bucketTick(dayOf.get(label), interval)} minTickGap={20} tickMargin={6} interval="preserveStartEnd" />
                <YAxis tick={axisTick} domain={[0, 100]} tickFormatter={(value: number) => `${value}%`} width={44} />
                <Tooltip formatter={(value) => `${Number(value)}%`} labelFormatter={(label) => bucketTitle(dayOf.get(String(label)), interval)} />
                {series.length > 1 && <Legend wrapperStyle={{ fontSize: 12 }} />}
                {active !== null && <ReferenceLine x={labels[active]} stroke="#4f46e5" strokeDasharray="3 3" />}
                {series.map((_, index) => (
                  <Line key={index} dataKey={`s${index}`} name={names[index]} stroke={colorAt(index)} strokeWidth={2} dot={false} isAnimationActive={false} />
                ))}
              </LineChart>
            </ResponsiveContainer>
          </figure>
        )}
      </PointPicker>
    </ResultFrame>
  );
}
