"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Button, Dialog, FormAlert, inputClasses, SelectField, TextField } from "@/components/ui";
import { textBodySchema } from "@/server/dashboards/contract";
import { formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { SavedInsightPicker } from "./saved-insight-picker";

const DATE_RANGES = [
  { value: "-24h", label: "Last 24 hours" },
  { value: "-7d", label: "Last 7 days" },
  { value: "-30d", label: "Last 30 days" },
  { value: "-90d", label: "Last 90 days" },
] as const;

const OPERATORS = [
  { value: "exact", label: "equals" },
  { value: "is_not", label: "does not equal" },
  { value: "icontains", label: "contains" },
  { value: "is_set", label: "is set" },
] as const;

interface InsightValues {
  name: string;
  kind: "trend" | "number";
  display: "ActionsLineGraph" | "ActionsBar";
  event: string;
  math: "total" | "dau";
  interval: "hour" | "day" | "week" | "month";
  dateFrom: string;
  filterKey: string;
  filterOperator: (typeof OPERATORS)[number]["value"];
  filterValue: string;
  breakdown: string;
}

const INITIAL: InsightValues = {
  name: "",
  kind: "trend",
  display: "ActionsLineGraph",
  event: "$pageview",
  math: "total",
  interval: "day",
  dateFrom: "-7d",
  filterKey: "",
  filterOperator: "exact",
  filterValue: "",
  breakdown: "",
};

/** The insight query (PostHog's InsightVizNode around a TrendsQuery) the form describes. */
export function insightQueryFrom(values: InsightValues) {
  const event = values.event.trim() || null;
  const filterKey = values.filterKey.trim();
  return {
    kind: "InsightVizNode",
    source: {
      kind: "TrendsQuery",
      series: [{ kind: "EventsNode", event, name: event ?? "All events", math: values.math }],
      interval: values.interval,
      dateRange: { date_from: values.dateFrom },
      properties: filterKey
        ? [{ type: "event", key: filterKey, operator: values.filterOperator, value: values.filterOperator === "is_set" ? null : values.filterValue }]
        : [],
      breakdownFilter: values.kind === "trend" && values.breakdown.trim() ? { breakdown: values.breakdown.trim(), breakdown_type: "event" } : null,
      trendsFilter: { display: values.kind === "number" ? "BoldNumber" : values.display },
      // A number shows its change against the previous period.
      ...(values.kind === "number" ? { compareFilter: { compare: true } } : {}),
    },
  };
}

const defaultName = (values: InsightValues) =>
  `${values.event.trim() || "All events"} ${values.math === "dau" ? "unique users" : "count"}${values.kind === "trend" && values.breakdown.trim() ? ` by ${values.breakdown.trim()}` : ""}`;

/**
 * "Add insight": first the saved insights to pick from; then, on request, a quick trend (event,
 * math, interval, range, one property filter, breakdown) or a number built here.
 */
export function AddInsightDialog({ projectId, dashboardId, open, onClose }: { projectId: number; dashboardId: number; open: boolean; onClose: () => void }) {
  return open ? <AddInsightChooser projectId={projectId} dashboardId={dashboardId} onClose={onClose} /> : null;
}

function AddInsightChooser({ projectId, dashboardId, onClose }: { projectId: number; dashboardId: number; onClose: () => void }) {
  const [mode, setMode] = useState<"saved" | "new">("saved");
  return mode === "saved" ? (
    <SavedInsightPicker projectId={projectId} dashboardId={dashboardId} onClose={onClose} onBuildNew={() => setMode("new")} />
  ) : (
    <AddInsightForm projectId={projectId} dashboardId={dashboardId} onClose={onClose} />
  );
}

function AddInsightForm({ projectId, dashboardId, onClose }: { projectId: number; dashboardId: number; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const [values, setValues] = useState(INITIAL);
  const [errors, setErrors] = useState<FormErrors<"name" | "query">>(NO_ERRORS);
  const add = useMutation(
    trpc.dashboards.tiles.addInsight.mutationOptions({
      onSuccess: (dashboard) => {
        queryClient.setQueryData(trpc.dashboards.get.queryKey({ projectId, dashboardId }), dashboard);
        onClose();
      },
      onError: (error) => setErrors(formErrorsFrom(error, ["name", "query"])),
    }),
  );
  const set = <K extends keyof InsightValues>(key: K, value: InsightValues[K]) => setValues((current) => ({ ...current, [key]: value }));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setErrors(NO_ERRORS);
    add.mutate({ projectId, dashboardId, insight: { name: values.name.trim() || defaultName(values), query: insightQueryFrom(values) } });
  }

  return (
    <Dialog
      open
      onClose={onClose}
      title="Add insight"
      description="A chart of an event over time, or one number for the whole range."
      testId="add-insight-dialog"
      className="max-w-xl"
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={add.isPending}>
            Cancel
          </Button>
          <Button type="submit" form={formId} loading={add.isPending} data-testid="add-insight-submit">
            Add insight
          </Button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} className="flex flex-col gap-4" noValidate data-testid="add-insight-form">
        {(errors.form || errors.fields.query) && <FormAlert testId="add-insight-error">{errors.form ?? errors.fields.query}</FormAlert>}
        <TextField label="Name" value={values.name} onChange={(e) => set("name", e.target.value)} placeholder={defaultName(values)} maxLength={400} error={errors.fields.name} testId="insight-name" />
        <fieldset className="flex flex-col gap-1.5">
          <legend className="mb-1.5 text-sm font-medium text-gray-800">Type</legend>
          <div className="flex gap-4 text-sm text-gray-800">
            {(
              [
                ["trend", "Trend over time"],
                ["number", "Number"],
              ] as const
            ).map(([kind, label]) => (
              <label key={kind} className="flex items-center gap-2">
                <input type="radio" name="kind" value={kind} checked={values.kind === kind} onChange={() => set("kind", kind)} className="accent-brand-600" data-testid={`insight-kind-${kind}`} />
                {label}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Event" value={values.event} onChange={(e) => set("event", e.target.value)} hint="Empty for all events." maxLength={200} testId="insight-event" />
          <SelectField label="Measure" value={values.math} onChange={(e) => set("math", e.target.value as InsightValues["math"])} testId="insight-math">
            <option value="total">Total count</option>
            <option value="dau">Unique users</option>
          </SelectField>
          <SelectField label="Date range" value={values.dateFrom} onChange={(e) => set("dateFrom", e.target.value)} testId="insight-date-range">
            {DATE_RANGES.map((range) => (
              <option key={range.value} value={range.value}>
                {range.label}
              </option>
            ))}
          </SelectField>
          {values.kind === "trend" && (
            <>
              <SelectField label="Interval" value={values.interval} onChange={(e) => set("interval", e.target.value as InsightValues["interval"])} testId="insight-interval">
                <option value="hour">Hour</option>
                <option value="day">Day</option>
                <option value="week">Week</option>
                <option value="month">Month</option>
              </SelectField>
              <SelectField label="Chart" value={values.display} onChange={(e) => set("display", e.target.value as InsightValues["display"])} testId="insight-display">
                <option value="ActionsLineGraph">Line</option>
                <option value="ActionsBar">Bars</option>
              </SelectField>
              <TextField
                label="Breakdown by property"
                value={values.breakdown}
                onChange={(e) => set("breakdown", e.target.value)}
                placeholder="e.g. $pathname"
                hint="Top 10 values, the rest as Other."
                maxLength={400}
                testId="insight-breakdown"
              />
            </>
          )}
        </div>
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1.5 text-sm font-medium text-gray-800">
            Property filter <span className="font-normal text-gray-500">(optional)</span>
          </legend>
          <div className="grid gap-2 sm:grid-cols-3">
            <TextField label="Property" value={values.filterKey} onChange={(e) => set("filterKey", e.target.value)} placeholder="$browser" testId="insight-filter-key" />
            <SelectField label="Operator" value={values.filterOperator} onChange={(e) => set("filterOperator", e.target.value as InsightValues["filterOperator"])} testId="insight-filter-operator">
              {OPERATORS.map((operator) => (
                <option key={operator.value} value={operator.value}>
                  {operator.label}
                </option>
              ))}
            </SelectField>
            <TextField
              label="Value"
              value={values.filterValue}
              onChange={(e) => set("filterValue", e.target.value)}
              disabled={values.filterOperator === "is_set"}
              placeholder="Chrome"
              testId="insight-filter-value"
            />
          </div>
        </fieldset>
      </form>
    </Dialog>
  );
}

/** "Add text" and editing a text tile: plain text, shown with its line breaks. */
export function TextTileDialog({
  projectId,
  dashboardId,
  tile,
  open,
  onClose,
}: {
  projectId: number;
  dashboardId: number;
  /** The text tile to edit; none to add one. */
  tile?: { id: number; body: string };
  open: boolean;
  onClose: () => void;
}) {
  return open ? <TextTileForm projectId={projectId} dashboardId={dashboardId} tile={tile} onClose={onClose} /> : null;
}

function TextTileForm({ projectId, dashboardId, tile, onClose }: { projectId: number; dashboardId: number; tile?: { id: number; body: string }; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formId = useId();
  const fieldId = useId();
  const [body, setBody] = useState(tile?.body ?? "");
  const [errors, setErrors] = useState<FormErrors<"body">>(NO_ERRORS);
  const save = useMutation(
    trpc.dashboards.tiles.update.mutationOptions({
      onSuccess: (dashboard) => {
        queryClient.setQueryData(trpc.dashboards.get.queryKey({ projectId, dashboardId }), dashboard);
        onClose();
      },
      onError: (error) => setErrors(formErrorsFrom(error, ["body"])),
    }),
  );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const invalid = validate(textBodySchema, body, []);
    if (invalid) return setErrors({ fields: { body: invalid.form ?? "Invalid text." }, form: null });
    setErrors(NO_ERRORS);
    save.mutate({ projectId, dashboardId, tiles: [tile ? { id: tile.id, text: { body } } : { text: { body } }] });
  }

  return (
    <Dialog
      open
      onClose={onClose}
      title={tile ? "Edit text" : "Add text"}
      testId="text-tile-dialog"
      className="max-w-lg"
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={save.isPending}>
            Cancel
          </Button>
          <Button type="submit" form={formId} loading={save.isPending} data-testid="text-tile-submit">
            {tile ? "Save" : "Add text"}
          </Button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} className="flex flex-col gap-1.5" noValidate>
        {errors.form && <FormAlert>{errors.form}</FormAlert>}
        <label htmlFor={fieldId} className="text-sm font-medium text-gray-800">
          Text
        </label>
        <textarea
          id={fieldId}
          rows={6}
          value={body}
          autoFocus
          maxLength={4000}
          onChange={(event) => setBody(event.target.value)}
          aria-invalid={errors.fields.body ? true : undefined}
          className={inputClasses({ invalid: Boolean(errors.fields.body), className: "h-auto py-2" })}
          data-testid="text-tile-body"
        />
        {errors.fields.body && <p className="text-sm text-red-700">{errors.fields.body}</p>}
        <p className="text-xs text-gray-500">Markdown works: # headings, **bold**, _italic_, - lists, [links](https://example.com).</p>
      </form>
    </Dialog>
  );
}
