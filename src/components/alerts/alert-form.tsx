"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Dialog, FormAlert, SelectField, Switch, TextField } from "@/components/ui";
import { alertCreateBody, CALCULATION_INTERVALS, CONDITION_TYPES, type AlertResource, type ConditionType } from "@/server/alerts/contract";
import { formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import { INTERVAL_LABELS } from "./alert-shared";

const FIELDS = ["name", "threshold", "condition", "config", "calculation_interval", "webhook_url", "subscribed_users", "insight", "enabled", "skip_weekend"] as const;
type Field = (typeof FIELDS)[number];

interface Values {
  name: string;
  condition: ConditionType;
  percentage: boolean;
  lower: string;
  upper: string;
  seriesIndex: number;
  ongoing: boolean;
  interval: AlertResource["calculation_interval"];
  webhookUrl: string;
  subscribed: number[];
  enabled: boolean;
  skipWeekend: boolean;
}

function valuesOf(alert: AlertResource | null): Values {
  if (!alert) {
    return { name: "", condition: "absolute_value", percentage: false, lower: "", upper: "", seriesIndex: 0, ongoing: false, interval: "daily", webhookUrl: "", subscribed: [], enabled: true, skipWeekend: false };
  }
  const { bounds, type } = alert.threshold.configuration;
  const percentage = type === "percentage";
  const text = (value: number | null | undefined) => (value == null ? "" : String(percentage ? Math.round(value * 10_000) / 100 : value));
  return {
    name: alert.name,
    condition: alert.condition.type,
    percentage,
    lower: text(bounds.lower),
    upper: text(bounds.upper),
    seriesIndex: alert.config.series_index,
    ongoing: Boolean(alert.config.check_ongoing_interval),
    interval: alert.calculation_interval,
    webhookUrl: alert.webhook_url ?? "",
    subscribed: alert.subscribed_users.map((u) => u.id),
    enabled: alert.enabled,
    skipWeekend: alert.skip_weekend,
  };
}

/** The body the contract checks (the same schema the API parses): percentages typed as 20 are sent as 0.2. */
function bodyOf(values: Values, insightId: number) {
  const percentage = values.percentage && values.condition !== "absolute_value";
  const bound = (text: string) => (text.trim() === "" ? null : Number.isFinite(Number(text)) ? Number(text) / (percentage ? 100 : 1) : (text as unknown as number));
  return {
    insight: insightId,
    name: values.name,
    condition: { type: values.condition },
    threshold: { configuration: { type: percentage ? ("percentage" as const) : ("absolute" as const), bounds: { lower: bound(values.lower), upper: bound(values.upper) } } },
    config: { type: "TrendsAlertConfig" as const, series_index: values.seriesIndex, check_ongoing_interval: values.ongoing },
    calculation_interval: values.interval,
    webhook_url: values.webhookUrl.trim() || null,
    subscribed_users: values.subscribed,
    enabled: values.enabled,
    skip_weekend: values.skipWeekend,
  };
}

export interface AlertFormProps {
  projectId: number;
  insightId: number;
  /** The insight's series names, in order (series_index picks one). */
  seriesNames: string[];
  /** Whether the insight charts intervals (relative conditions need it). */
  timeSeries: boolean;
  /** null: a new alert. */
  alert: AlertResource | null;
  open: boolean;
  onClose: () => void;
  onSaved?: (alert: AlertResource) => void;
}

/** Create or edit an alert on a trends insight, checked with the API's own schema before sending. */
export function AlertForm({ projectId, insightId, seriesNames, timeSeries, alert, open, onClose, onSaved }: AlertFormProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Values>(() => valuesOf(alert));
  const [errors, setErrors] = useState<FormErrors<Field>>(NO_ERRORS);
  const members = useQuery({ ...trpc.organization.members.queryOptions({ projectId }), enabled: open });
  const done = async (saved: AlertResource) => {
    await queryClient.invalidateQueries(trpc.alerts.pathFilter());
    onSaved?.(saved);
    onClose();
  };
  const create = useMutation(trpc.alerts.create.mutationOptions({ onSuccess: done, onError: (error) => setErrors(formErrorsFrom(error, FIELDS)) }));
  const update = useMutation(trpc.alerts.update.mutationOptions({ onSuccess: done, onError: (error) => setErrors(formErrorsFrom(error, FIELDS)) }));
  const set = (patch: Partial<Values>) => setValues((current) => ({ ...current, ...patch }));
  const relative = values.condition !== "absolute_value";
  const unit = relative && values.percentage ? "%" : "";

  const submit = () => {
    const body = bodyOf(values, insightId);
    const problems = validate<Field>(alertCreateBody, body, FIELDS);
    if (problems) return setErrors(problems);
    setErrors(NO_ERRORS);
    if (alert) update.mutate({ projectId, id: alert.id, patch: body });
    else create.mutate({ projectId, alert: body });
  };
  const pending = create.isPending || update.isPending;

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={alert ? `Edit alert "${alert.name}"` : "New alert"}
      description="Checked on a schedule over the insight's latest intervals; you are told when it starts firing and when it resolves."
      testId="alert-form"
      className="sm:max-w-lg"
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button onClick={submit} loading={pending} data-testid="alert-save">
            {alert ? "Save alert" : "Create alert"}
          </Button>
        </>
      }
    >
      <form
        className="flex flex-col gap-4"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
        noValidate
      >
        {errors.form && <FormAlert testId="alert-form-error">{errors.form}</FormAlert>}
        <div className="flex flex-col gap-4 sm:flex-row sm:items-end">
          <TextField label="Name" value={values.name} onChange={(e) => set({ name: e.target.value })} error={errors.fields.name} testId="alert-name" autoFocus maxLength={400} className="min-w-0 flex-1" />
          <Switch checked={values.enabled} onChange={(enabled) => set({ enabled })} label="Alert enabled" testId="alert-form-enabled" className="h-10" />
        </div>
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <SelectField label="Series" value={values.seriesIndex} onChange={(e) => set({ seriesIndex: Number(e.target.value) })} error={errors.fields.config} testId="alert-series">
            {seriesNames.map((name, index) => (
              <option key={index} value={index}>
                {String.fromCharCode(65 + (index % 26))}. {name}
              </option>
            ))}
          </SelectField>
          <SelectField label="When the" value={values.condition} onChange={(e) => set({ condition: e.target.value as ConditionType })} error={errors.fields.condition} testId="alert-condition">
            {CONDITION_TYPES.filter((type) => timeSeries || type === "absolute_value").map((type) => (
              <option key={type} value={type}>
                {type === "absolute_value" ? "value" : type === "relative_increase" ? "increase from the interval before" : "decrease from the interval before"}
              </option>
            ))}
          </SelectField>
        </div>
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <SelectField label="Check" value={values.interval} onChange={(e) => set({ interval: e.target.value as Values["interval"] })} error={errors.fields.calculation_interval} testId="alert-interval">
            {CALCULATION_INTERVALS.map((interval) => (
              <option key={interval} value={interval}>
                {INTERVAL_LABELS[interval]}
              </option>
            ))}
          </SelectField>
          {relative && (
            <SelectField label="Measured as" value={values.percentage ? "percentage" : "absolute"} onChange={(e) => set({ percentage: e.target.value === "percentage" })} testId="alert-threshold-type">
              <option value="absolute">a number</option>
              <option value="percentage">a percentage</option>
            </SelectField>
          )}
        </div>
        <div className="grid grid-cols-2 gap-4">
          <TextField label={`Is below${unit ? " (%)" : ""}`} inputMode="decimal" value={values.lower} onChange={(e) => set({ lower: e.target.value })} placeholder="no lower bound" testId="alert-lower" />
          <TextField label={`Or above${unit ? " (%)" : ""}`} inputMode="decimal" value={values.upper} onChange={(e) => set({ upper: e.target.value })} placeholder="no upper bound" testId="alert-upper" />
        </div>
        {errors.fields.threshold && (
          <p className="-mt-2 text-sm text-red-700" data-testid="alert-threshold-error">
            {errors.fields.threshold}
          </p>
        )}
        <label className="flex items-start gap-2 text-sm text-gray-700">
          <input type="checkbox" className="mt-0.5 size-4 accent-brand-600" checked={values.skipWeekend} onChange={(e) => set({ skipWeekend: e.target.checked })} data-testid="alert-skip-weekend" />
          <span>
            Skip weekends
            <span className="block text-xs text-gray-500">No scheduled check on Saturday or Sunday in the project&apos;s time zone.</span>
          </span>
        </label>
        {timeSeries && (
          <label className="flex items-start gap-2 text-sm text-gray-700">
            <input type="checkbox" className="mt-0.5 size-4 accent-brand-600" checked={values.ongoing} onChange={(e) => set({ ongoing: e.target.checked })} data-testid="alert-ongoing" />
            <span>
              Check the interval under way too
              <span className="block text-xs text-gray-500">Otherwise the last complete interval is checked. Needs an upper bound.</span>
            </span>
          </label>
        )}
        <TextField
          label="Webhook URL (optional)"
          type="url"
          value={values.webhookUrl}
          onChange={(e) => set({ webhookUrl: e.target.value })}
          placeholder="https://hooks.example.com/alerts"
          hint="Receives a JSON POST when the alert fires and when it resolves."
          error={errors.fields.webhook_url}
          testId="alert-webhook"
        />
        <fieldset className="flex flex-col gap-1.5" data-testid="alert-subscribers">
          <legend className="mb-1 text-sm font-medium text-gray-900">E-mail</legend>
          {members.isPending && <p className="text-sm text-gray-500">Loading members…</p>}
          {members.data?.map((member) => (
            <label key={member.user.id} className="flex items-center gap-2 text-sm text-gray-700">
              <input
                type="checkbox"
                className="size-4 accent-brand-600"
                checked={values.subscribed.includes(member.user.id)}
                onChange={(e) => set({ subscribed: e.target.checked ? [...values.subscribed, member.user.id] : values.subscribed.filter((id) => id !== member.user.id) })}
              />
              {member.user.email}
            </label>
          ))}
          {errors.fields.subscribed_users && <p className="text-sm text-red-700">{errors.fields.subscribed_users}</p>}
        </fieldset>
        {/* Enter in a field submits. */}
        <button type="submit" hidden />
      </form>
    </Dialog>
  );
}
