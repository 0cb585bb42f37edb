"use client";

import { Button, inputClasses, RemoveButton } from "@/components/ui";
import { INTERVALS } from "@/server/analytics/date-range";
import { MAX_SERIES } from "@/server/analytics/nodes";
import {
  BREAKDOWN_KINDS,
  DATE_PRESETS,
  DISPLAY_LABELS,
  FUNNEL_ORDER_LABELS,
  FUNNEL_VIZ_LABELS,
  INTERVAL_KINDS,
  intervalForRange,
  INTERVAL_LABELS,
  isPropertyMath,
  MATH_LABELS,
  newSeries,
  PATH_TYPE_LABELS,
  RETENTION_PERIOD_LABELS,
  RETENTION_TYPE_LABELS,
  STICKINESS_LABELS,
  WINDOW_UNIT_LABELS,
  type EditorState,
  type SeriesDraft,
} from "./editor-state";
import { Section, Select } from "./controls";
import { CohortSelect, FILTER_TYPE_LABELS, FilterList, useCohorts } from "./filter-panels";
import { EventNamePicker, PropertyKeyPicker } from "./pickers";

export { FilterGroupsEditor } from "./filter-panels";
export { Section } from "./controls";

export type Update = (change: (state: EditorState) => EditorState) => void;

const letter = (index: number) => String.fromCharCode(65 + index);

function NumberInput({ label, value, min, max, onChange, testId }: { label: string; value: number; min: number; max: number; onChange: (value: number) => void; testId?: string }) {
  return (
    <label className="flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800">
      {label}
      <input
        type="number"
        inputMode="numeric"
        className={inputClasses()}
        min={min}
        max={max}
        value={Number.isFinite(value) ? value : ""}
        onChange={(event) => onChange(event.target.value === "" ? Number.NaN : Math.trunc(Number(event.target.value)))}
        data-testid={testId}
      />
    </label>
  );
}

// ---------------------------------------------------------------------------------------
// Series and funnel steps

export function SeriesSection({ projectId, state, update }: { projectId: number; state: EditorState; update: Update }) {
  const funnel = state.kind === "funnels";
  const single = state.kind === "lifecycle";
  const series = single ? state.series.slice(0, 1) : state.series;
  const noun = funnel ? "Step" : "Series";
  const nameOf = (index: number) => (funnel ? `Step ${index + 1}` : `Series ${letter(index)}`);
  const setSeries = (index: number, patch: Partial<SeriesDraft>) =>
    update((current) => ({ ...current, series: current.series.map((one, at) => (at === index ? { ...one, ...patch } : one)) }));
  const move = (index: number, by: number) =>
    update((current) => {
      const next = [...current.series];
      const [moved] = next.splice(index, 1);
      next.splice(index + by, 0, moved!);
      return { ...current, series: next };
    });
  return (
    <Section title={funnel ? "Steps" : single ? "Event" : "Series"} testId="series-section">
      <ol className="flex flex-col gap-3" data-testid="series-list">
        {series.map((one, index) => (
          <li key={index} className="flex flex-col gap-2 rounded-control border border-gray-200 bg-gray-50/60 p-3" data-testid="series-row">
            <div className="flex items-center gap-1.5">
              <span className="flex size-6 shrink-0 items-center justify-center rounded-full bg-brand-600 text-xs font-semibold text-white" aria-hidden="true">
                {funnel ? index + 1 : letter(index)}
              </span>
              <EventNamePicker
                projectId={projectId}
                label={`${nameOf(index)} event`}
                value={one.event}
                onChange={(event) => setSeries(index, { event })}
                testId="series-event"
                className="flex-1"
              />
              {funnel && (
                <>
                  <IconButton label={`Move ${nameOf(index)} up`} disabled={index === 0} onClick={() => move(index, -1)} testId="step-up" path="M10 4l-5 6h3v6h4v-6h3z" />
                  <IconButton
                    label={`Move ${nameOf(index)} down`}
                    disabled={index === series.length - 1}
                    onClick={() => move(index, 1)}
                    testId="step-down"
                    path="M10 16l5-6h-3V4H8v6H5z"
                  />
                </>
              )}
              {!single && series.length > 1 && (
                <IconButton
                  label={`Remove ${nameOf(index)}`}
                  onClick={() => update((current) => ({ ...current, series: current.series.filter((_, at) => at !== index) }))}
                  path={REMOVE_PATH}
                  testId="remove-series"
                />
              )}
            </div>
            {state.kind === "trends" && (
              <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
                <Select label={`${nameOf(index)} aggregation`} visibleLabel={false} value={one.math} options={MATH_LABELS} onChange={(math) => setSeries(index, { math })} testId="series-math" />
                {isPropertyMath(one.math) && (
                  <PropertyKeyPicker
                    projectId={projectId}
                    type="event"
                    label={`${nameOf(index)} numeric property`}
                    value={one.math_property}
                    onChange={(math_property) => setSeries(index, { math_property })}
                    placeholder="Numeric property, e.g. price"
                    eventNames={one.event ? [one.event] : undefined}
                    testId="series-math-property"
                  />
                )}
              </div>
            )}
            <FilterList
              projectId={projectId}
              label={`${nameOf(index)} filter`}
              filters={one.properties}
              onChange={(properties) => setSeries(index, { properties })}
              addLabel="Filter this event"
              eventNames={one.event ? [one.event] : undefined}
              compact
            />
          </li>
        ))}
      </ol>
      {!single && (
        <Button
          variant="secondary"
          size="sm"
          className="self-start"
          disabled={state.series.length >= MAX_SERIES}
          onClick={() => update((current) => ({ ...current, series: [...current.series, newSeries(funnel ? null : "$pageview")] }))}
          data-testid="add-series"
        >
          + Add {noun.toLowerCase()}
        </Button>
      )}
    </Section>
  );
}

/** A square icon button of a series row (the shared Button's padding is for text). */
function IconButton({ label, onClick, disabled, path, testId }: { label: string; onClick: () => void; disabled?: boolean; path: string; testId: string }) {
  return (
    <Button variant="ghost" size="sm" aria-label={label} onClick={onClick} disabled={disabled} className="w-8 px-0!" data-testid={testId}>
      <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" stroke="currentColor" strokeWidth="0.5" strokeLinejoin="round" className="size-4">
        <path d={path} />
      </svg>
    </Button>
  );
}

const REMOVE_PATH = "M5.7 4.3 10 8.6l4.3-4.3 1.4 1.4L11.4 10l4.3 4.3-1.4 1.4-4.3-4.3-4.3 4.3-1.4-1.4L8.6 10 4.3 5.7z";

// ---------------------------------------------------------------------------------------
// Breakdown

export function BreakdownSection({ projectId, state, update }: { projectId: number; state: EditorState; update: Update }) {
  const cohorts = useCohorts(projectId);
  if (!BREAKDOWN_KINDS.has(state.kind)) return null;
  const breakdown = state.breakdown;
  const setBreakdown = (next: EditorState["breakdown"]) => update((current) => ({ ...current, breakdown: next }));
  return (
    <Section title="Breakdown" testId="breakdown-section">
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-[11rem_1fr]">
        <Select
          label="Break down by"
          visibleLabel={false}
          value={breakdown?.type ?? "none"}
          options={{ none: "No breakdown", ...FILTER_TYPE_LABELS }}
          onChange={(type) => setBreakdown(type === "none" ? null : { type, value: "" })}
          testId="breakdown-type"
        />
        {breakdown &&
          (breakdown.type === "cohort" ? (
            <CohortSelect label="Breakdown cohort" cohorts={cohorts} value={breakdown.value} onChange={(value) => setBreakdown({ ...breakdown, value })} />
          ) : (
            <PropertyKeyPicker
              projectId={projectId}
              type={breakdown.type}
              label={`Breakdown ${breakdown.type} property`}
              value={breakdown.value}
              onChange={(value) => setBreakdown({ ...breakdown, value })}
              testId="breakdown-key"
            />
          ))}
      </div>
    </Section>
  );
}

// ---------------------------------------------------------------------------------------
// Date range, interval, display, formula

export function DateSection({ state, update }: { state: EditorState; update: Update }) {
  const presets: { value: string; label: string }[] = [...DATE_PRESETS];
  if (!presets.some((preset) => preset.value === state.dateFrom)) presets.push({ value: state.dateFrom, label: state.dateFrom ? `From ${state.dateFrom}` : "Default range" });
  return (
    <Section title="Date range" testId="date-section">
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        <Select
          label="Date range"
          value={state.dateFrom}
          options={presets}
          onChange={(dateFrom) => update((current) => ({ ...current, dateFrom, dateTo: "", interval: intervalForRange(dateFrom, current.interval) }))}
          testId="date-from"
        />
        {INTERVAL_KINDS.has(state.kind) && state.kind !== "trends" ? (
          <Select label="Interval" value={state.interval} options={INTERVAL_LABELS} onChange={(interval) => update((current) => ({ ...current, interval }))} testId="interval" />
        ) : state.kind === "trends" ? (
          <Select
            label="Grouped by"
            value={state.interval}
            options={INTERVALS.map((interval) => ({ value: interval, label: INTERVAL_LABELS[interval] }))}
            onChange={(interval) => update((current) => ({ ...current, interval }))}
            testId="interval"
          />
        ) : null}
      </div>
    </Section>
  );
}

export function DisplaySection({ state, update }: { state: EditorState; update: Update }) {
  if (state.kind !== "trends") return null;
  return (
    <Section title="Chart" testId="display-section">
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        <Select label="Chart type" value={state.display} options={DISPLAY_LABELS} onChange={(display) => update((current) => ({ ...current, display }))} testId="display" />
        <label className="flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800">
          Formula
          <input
            className={inputClasses({ className: "font-mono" })}
            placeholder="e.g. A / B * 100"
            value={state.formula}
            onChange={(event) => {
              const formula = event.target.value;
              update((current) => ({ ...current, formula }));
            }}
            data-testid="formula"
          />
        </label>
      </div>
    </Section>
  );
}

// ---------------------------------------------------------------------------------------
// Kind-specific options

export function FunnelSection({ projectId, state, update }: { projectId: number; state: EditorState; update: Update }) {
  if (state.kind !== "funnels") return null;
  const { funnel } = state;
  const setFunnel = (patch: Partial<EditorState["funnel"]>) => update((current) => ({ ...current, funnel: { ...current.funnel, ...patch } }));
  const steps = state.series.map((_, index) => ({ value: String(index), label: `Step ${index + 1}` }));
  return (
    <Section title="Funnel options" testId="funnel-section">
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        <Select label="Step order" value={funnel.orderType} options={FUNNEL_ORDER_LABELS} onChange={(orderType) => setFunnel({ orderType })} testId="funnel-order" />
        <Select label="Show" value={funnel.vizType} options={FUNNEL_VIZ_LABELS} onChange={(vizType) => setFunnel({ vizType })} testId="funnel-viz" />
        <NumberInput label="Conversion window" value={funnel.windowInterval} min={1} max={100_000} onChange={(windowInterval) => setFunnel({ windowInterval })} testId="funnel-window" />
        <Select label="Window unit" value={funnel.windowUnit} options={WINDOW_UNIT_LABELS} onChange={(windowUnit) => setFunnel({ windowUnit })} testId="funnel-window-unit" />
      </div>
      <div className="flex flex-col gap-2" data-testid="exclusions">
        <p className="text-sm font-medium text-gray-800">Exclusions</p>
        {funnel.exclusions.map((exclusion, index) => {
          const name = `Exclusion ${index + 1}`;
          const setExclusion = (patch: Partial<typeof exclusion>) => setFunnel({ exclusions: funnel.exclusions.map((one, at) => (at === index ? { ...one, ...patch } : one)) });
          return (
            <div key={index} className="grid grid-cols-[1fr_auto] gap-2 sm:grid-cols-[1fr_6.5rem_6.5rem_auto]" data-testid="exclusion-row">
              <EventNamePicker projectId={projectId} label={`${name} event`} value={exclusion.event} onChange={(event) => setExclusion({ event })} className="col-span-2 sm:col-span-1" />
              <Select label={`${name}: from`} visibleLabel={false} value={String(exclusion.from)} options={steps} onChange={(from) => setExclusion({ from: Number(from) })} />
              <Select label={`${name}: to`} visibleLabel={false} value={String(exclusion.to)} options={steps} onChange={(to) => setExclusion({ to: Number(to) })} />
              <RemoveButton label={`Remove ${name}`} onClick={() => setFunnel({ exclusions: funnel.exclusions.filter((_, at) => at !== index) })} />
            </div>
          );
        })}
        <Button
          variant="ghost"
          size="sm"
          className="-ml-2 self-start"
          onClick={() => setFunnel({ exclusions: [...funnel.exclusions, { event: null, from: 0, to: Math.max(1, state.series.length - 1) }] })}
          data-testid="add-exclusion"
        >
          + Exclude an event between steps
        </Button>
      </div>
    </Section>
  );
}

export function RetentionSection({ projectId, state, update }: { projectId: number; state: EditorState; update: Update }) {
  if (state.kind !== "retention") return null;
  const { retention } = state;
  const set = (patch: Partial<EditorState["retention"]>) => update((current) => ({ ...current, retention: { ...current.retention, ...patch } }));
  return (
    <Section title="Retention" testId="retention-section">
      <EventNamePicker projectId={projectId} label="First event (cohort)" visibleLabel value={retention.target} onChange={(target) => set({ target })} testId="retention-target" />
      <EventNamePicker projectId={projectId} label="Returning event" visibleLabel value={retention.returning} onChange={(returning) => set({ returning })} testId="retention-returning" />
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        <Select label="Period" value={retention.period} options={RETENTION_PERIOD_LABELS} onChange={(period) => set({ period })} testId="retention-period" />
        <NumberInput label="Periods shown" value={retention.totalIntervals} min={1} max={366} onChange={(totalIntervals) => set({ totalIntervals })} testId="retention-count" />
        <Select label="Counts" value={retention.retentionType} options={RETENTION_TYPE_LABELS} onChange={(retentionType) => set({ retentionType })} testId="retention-type" className="sm:col-span-2" />
      </div>
    </Section>
  );
}

export function PathsSection({ projectId, state, update }: { projectId: number; state: EditorState; update: Update }) {
  if (state.kind !== "paths") return null;
  const { paths } = state;
  const set = (patch: Partial<EditorState["paths"]>) => update((current) => ({ ...current, paths: { ...current.paths, ...patch } }));
  return (
    <Section title="Paths" testId="paths-section">
      <fieldset className="flex flex-wrap gap-x-4 gap-y-2">
        <legend className="mb-1 text-sm font-medium text-gray-800">Events in paths</legend>
        {(Object.keys(PATH_TYPE_LABELS) as (keyof typeof PATH_TYPE_LABELS)[]).map((type) => (
          <label key={type} className="flex items-center gap-2 text-sm text-gray-800">
            <input
              type="checkbox"
              className="size-4 rounded border-gray-300 accent-brand-600"
              checked={paths.includeEventTypes.includes(type)}
              onChange={(event) =>
                set({ includeEventTypes: event.target.checked ? [...paths.includeEventTypes, type] : paths.includeEventTypes.filter((one) => one !== type) })
              }
              data-testid={`path-type-${type}`}
            />
            {PATH_TYPE_LABELS[type]}
          </label>
        ))}
      </fieldset>
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        <label className="flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800">
          Starts at
          <input className={inputClasses()} placeholder="Any page or event" value={paths.startPoint} onChange={(event) => set({ startPoint: event.target.value })} data-testid="path-start" />
        </label>
        <label className="flex min-w-0 flex-col gap-1.5 text-sm font-medium text-gray-800">
          Ends at
          <input className={inputClasses()} placeholder="Any page or event" value={paths.endPoint} onChange={(event) => set({ endPoint: event.target.value })} data-testid="path-end" />
        </label>
        <NumberInput label="Steps" value={paths.stepLimit} min={2} max={20} onChange={(stepLimit) => set({ stepLimit })} testId="path-steps" />
      </div>
      <label className="flex items-center gap-2 text-sm text-gray-800">
        <input
          type="checkbox"
          className="size-4 rounded border-gray-300 accent-brand-600"
          checked={paths.ignoreQuery}
          onChange={(event) => set({ ignoreQuery: event.target.checked })}
          data-testid="path-ignore-query"
        />
        Ignore query strings (one step for /page and /page?utm_source=…)
      </label>
    </Section>
  );
}

export function StickinessSection({ state, update }: { state: EditorState; update: Update }) {
  if (state.kind !== "stickiness") return null;
  return (
    <Section title="Stickiness" testId="stickiness-section">
      <Select
        label="Count persons active"
        value={state.stickiness.computedAs}
        options={STICKINESS_LABELS}
        onChange={(computedAs) => update((current) => ({ ...current, stickiness: { computedAs } }))}
        testId="stickiness-computed"
      />
    </Section>
  );
}

