"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { Badge, Button, Dialog, EmptyState, ErrorState, FormAlert, formatDateTime, SelectField, Spinner, TextField } from "@/components/ui";
import type { AppRouter } from "@/server/http/trpc/root";
import {
  FREQUENCIES,
  SUBSCRIPTION_LIMITS,
  subscriptionCreateBody,
  targetProblem,
  WEEKDAYS,
  type SubscriptionCreateInput,
  type SubscriptionFrequency,
  type SubscriptionTargetType,
  type SubscriptionWeekday,
} from "@/server/subscriptions/contract";
import { errorMessage, formErrorsFrom, NO_ERRORS, validate, type FormErrors } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

type Subscription = inferRouterOutputs<AppRouter>["subscriptions"]["list"]["results"][number];

/** What is subscribed to: an insight, or a dashboard and the insights on it (in layout order). */
export type SubscriptionSubject = { kind: "insight"; insightId: number; name: string } | { kind: "dashboard"; dashboardId: number; name: string; insights: { id: number; name: string }[] };

const FIELDS = ["target_type", "target_value", "frequency", "interval", "byweekday", "start_date", "title", "dashboard_export_insights"] as const;
type Field = (typeof FIELDS)[number];
const FREQUENCY_LABELS: Record<SubscriptionFrequency, string> = { daily: "Daily", weekly: "Weekly", monthly: "Monthly", yearly: "Yearly" };
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Tomorrow at 09:00 local time, as a datetime-local value. */
function defaultStart(): string {
  const date = new Date();
  date.setDate(date.getDate() + 1);
  date.setHours(9, 0, 0, 0);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * "Subscribe" on an insight or a dashboard: the existing subscriptions (with send test now and
 * delete) and a form for a new one, checked with the API's own schema.
 */
export function SubscriptionsDialog({ projectId, subject, open, onClose }: { projectId: number; subject: SubscriptionSubject; open: boolean; onClose: () => void }) {
  const [adding, setAdding] = useState(false);
  const close = () => {
    setAdding(false);
    onClose();
  };
  return (
    <Dialog
      open={open}
      onClose={close}
      title={adding ? "New subscription" : "Subscriptions"}
      description={`Send "${subject.name}" on a schedule by e-mail or webhook, with an image of ${subject.kind === "insight" ? "the chart" : "each chart"} and a link back.`}
      testId="subscriptions-dialog"
      className="max-w-xl"
      footer={
        adding ? null : (
          <>
            <Button variant="secondary" onClick={close} data-testid="subscriptions-done">
              Done
            </Button>
            <Button onClick={() => setAdding(true)} data-testid="new-subscription">
              New subscription
            </Button>
          </>
        )
      }
    >
      {open && (adding ? <SubscriptionForm projectId={projectId} subject={subject} onDone={() => setAdding(false)} /> : <SubscriptionList projectId={projectId} subject={subject} onAdd={() => setAdding(true)} />)}
    </Dialog>
  );
}

function listInput(projectId: number, subject: SubscriptionSubject) {
  return subject.kind === "insight" ? { projectId, insight: subject.insightId } : { projectId, dashboard: subject.dashboardId };
}

function SubscriptionList({ projectId, subject, onAdd }: { projectId: number; subject: SubscriptionSubject; onAdd: () => void }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.subscriptions.list.queryOptions(listInput(projectId, subject)));
  if (list.isPending) {
    return (
      <div className="flex items-center gap-2 py-2 text-sm text-gray-600">
        <Spinner size="sm" label={null} /> <span role="status">Loading subscriptions…</span>
      </div>
    );
  }
  if (list.isError) return <ErrorState title="Could not load the subscriptions" message={errorMessage(list.error)} onRetry={() => void list.refetch()} />;
  if (list.data.results.length === 0) {
    return (
      <div data-testid="subscriptions-empty">
        <EmptyState
          title="No subscriptions yet"
          description="Get this in your inbox or at a webhook daily, weekly or monthly."
          action={
            <Button variant="secondary" onClick={onAdd}>
              Subscribe
            </Button>
          }
        />
      </div>
    );
  }
  return (
    <ul className="flex flex-col gap-3" data-testid="subscriptions-list">
      {list.data.results.map((subscription) => (
        <SubscriptionRow key={subscription.id} projectId={projectId} subscription={subscription} />
      ))}
    </ul>
  );
}

function SubscriptionRow({ projectId, subscription }: { projectId: number; subscription: Subscription }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries(trpc.subscriptions.pathFilter());
  const test = useMutation(trpc.subscriptions.testDelivery.mutationOptions({ onSettled: refresh }));
  const remove = useMutation(trpc.subscriptions.delete.mutationOptions({ onSuccess: refresh }));
  const outcome = test.data;
  return (
    <li className="flex flex-col gap-2 rounded-control border border-gray-200 p-3" data-testid="subscription-row" data-id={subscription.id}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="truncate text-sm font-medium text-gray-900">{subscription.title || subscription.resource_name || "Subscription"}</p>
          <p className="text-sm text-gray-600">
            {capitalised(subscription.summary)} to <span className="break-all">{subscription.target_value}</span>
          </p>
          <p className="text-xs text-gray-500">
            {subscription.next_delivery_date ? `Next: ${formatDateTime(subscription.next_delivery_date)}` : "No more deliveries"}
            {subscription.last_delivered_at ? ` · last sent ${formatDateTime(subscription.last_delivered_at)}` : ""}
          </p>
        </div>
        <Badge tone={subscription.target_type === "email" ? "brand" : "neutral"}>{subscription.target_type === "email" ? "E-mail" : "Webhook"}</Badge>
      </div>
      {subscription.last_delivery_error && !outcome && (
        <p className="text-sm text-red-700" data-testid="subscription-last-error">
          Last delivery failed: {subscription.last_delivery_error}
        </p>
      )}
      {outcome && (
        <p role="status" className={outcome.delivered ? "text-sm text-green-700" : "text-sm text-red-700"} data-testid="subscription-test-outcome">
          {outcome.delivered ? `Test sent with ${outcome.images} image${outcome.images === 1 ? "" : "s"}.` : `Test failed: ${outcome.error}`}
        </p>
      )}
      {(test.isError || remove.isError) && <FormAlert>{errorMessage(test.error ?? remove.error)}</FormAlert>}
      <div className="flex flex-wrap gap-2">
        <Button size="sm" variant="secondary" loading={test.isPending} onClick={() => test.mutate({ projectId, id: subscription.id })} data-testid="subscription-send-test">
          Send test now
        </Button>
        <Button size="sm" variant="secondary" loading={remove.isPending} onClick={() => remove.mutate({ projectId, id: subscription.id })} data-testid="subscription-delete">
          Delete
        </Button>
      </div>
    </li>
  );
}

function SubscriptionForm({ projectId, subject, onDone }: { projectId: number; subject: SubscriptionSubject; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [targetType, setTargetType] = useState<SubscriptionTargetType>("email");
  const [targetValue, setTargetValue] = useState("");
  const [frequency, setFrequency] = useState<SubscriptionFrequency>("weekly");
  const [interval, setInterval] = useState("1");
  const [weekday, setWeekday] = useState<SubscriptionWeekday | "">("monday");
  const [start, setStart] = useState(defaultStart);
  const [title, setTitle] = useState("");
  const [chosen, setChosen] = useState<number[]>(subject.kind === "dashboard" ? subject.insights.slice(0, SUBSCRIPTION_LIMITS.maxDashboardInsights).map((i) => i.id) : []);
  const [errors, setErrors] = useState<FormErrors<Field>>(NO_ERRORS);
  /** An edited field's message goes: it was about the old value. */
  const edited = (field: Field) => setErrors((current) => ({ fields: { ...current.fields, [field]: undefined }, form: current.form }));
  const create = useMutation(
    trpc.subscriptions.create.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries(trpc.subscriptions.pathFilter());
        onDone();
      },
      onError: (error) => setErrors(formErrorsFrom(error, FIELDS)),
    }),
  );

  const submit = () => {
    const startDate = new Date(start);
    const body: SubscriptionCreateInput = {
      ...(subject.kind === "insight" ? { insight: subject.insightId } : { dashboard: subject.dashboardId, dashboard_export_insights: chosen }),
      target_type: targetType,
      target_value: targetValue,
      frequency,
      interval: Number(interval),
      byweekday: frequency === "weekly" && weekday ? [weekday] : null,
      start_date: Number.isNaN(startDate.getTime()) ? start : startDate.toISOString(),
      title: title || null,
    };
    const problems = validate(subscriptionCreateBody, body, FIELDS);
    const target = problems?.fields.target_value ? null : targetProblem(targetType, targetValue.trim());
    if (problems || target) return setErrors(problems ? problems : { fields: { target_value: target! }, form: null });
    if (subject.kind === "dashboard" && chosen.length === 0) return setErrors({ fields: { dashboard_export_insights: "Choose at least one insight." }, form: null });
    setErrors(NO_ERRORS);
    create.mutate({ projectId, subscription: body });
  };

  return (
    <form
      className="flex flex-col gap-4"
      data-testid="subscription-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      {errors.form && <FormAlert testId="subscription-form-error">{errors.form}</FormAlert>}
      <div className="grid gap-4 sm:grid-cols-[10rem_1fr]">
        <SelectField label="Send by" value={targetType} onChange={(e) => (setTargetType(e.target.value as SubscriptionTargetType), edited("target_value"))} error={errors.fields.target_type} testId="subscription-target-type">
          <option value="email">E-mail</option>
          <option value="webhook">Webhook</option>
        </SelectField>
        <TextField
          label={targetType === "email" ? "Recipients" : "Webhook URL"}
          hint={targetType === "email" ? "E-mail addresses, separated by commas." : "Burrow POSTs JSON with each chart as a PNG data URL."}
          value={targetValue}
          onChange={(e) => (setTargetValue(e.target.value), edited("target_value"))}
          placeholder={targetType === "email" ? "ada@example.com, bob@example.com" : "https://hooks.example.com/reports"}
          error={errors.fields.target_value}
          testId="subscription-target-value"
          autoComplete="off"
        />
      </div>
      <div className="grid gap-4 sm:grid-cols-3">
        <SelectField label="Frequency" value={frequency} onChange={(e) => setFrequency(e.target.value as SubscriptionFrequency)} error={errors.fields.frequency} testId="subscription-frequency">
          {FREQUENCIES.map((f) => (
            <option key={f} value={f}>
              {FREQUENCY_LABELS[f]}
            </option>
          ))}
        </SelectField>
        <TextField label="Every" type="number" min={1} max={SUBSCRIPTION_LIMITS.maxInterval} value={interval} onChange={(e) => (setInterval(e.target.value), edited("interval"))} error={errors.fields.interval} testId="subscription-interval" />
        {frequency === "weekly" && (
          <SelectField label="On" value={weekday} onChange={(e) => setWeekday(e.target.value as SubscriptionWeekday | "")} error={errors.fields.byweekday} testId="subscription-weekday">
            <option value="">The start's weekday</option>
            {WEEKDAYS.map((day) => (
              <option key={day} value={day}>
                {capitalised(day)}
              </option>
            ))}
          </SelectField>
        )}
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Starting" type="datetime-local" value={start} onChange={(e) => (setStart(e.target.value), edited("start_date"))} hint="Deliveries go out at this time of day." error={errors.fields.start_date} testId="subscription-start" />
        <TextField label="Title (optional)" value={title} maxLength={SUBSCRIPTION_LIMITS.maxTitle} onChange={(e) => (setTitle(e.target.value), edited("title"))} error={errors.fields.title} testId="subscription-title" />
      </div>
      {subject.kind === "dashboard" && (
        <fieldset className="flex flex-col gap-2" data-testid="subscription-insights">
          <legend className="text-sm font-medium text-gray-800">Insights to send (at most {SUBSCRIPTION_LIMITS.maxDashboardInsights})</legend>
          {subject.insights.length === 0 && <p className="text-sm text-gray-600">This dashboard has no insights yet.</p>}
          {subject.insights.map((insight) => {
            const checked = chosen.includes(insight.id);
            return (
              <label key={insight.id} className="flex items-center gap-2 text-sm text-gray-800">
                <input
                  type="checkbox"
                  className="size-4 accent-brand-600"
                  checked={checked}
                  disabled={!checked && chosen.length >= SUBSCRIPTION_LIMITS.maxDashboardInsights}
                  onChange={() => setChosen((current) => (checked ? current.filter((id) => id !== insight.id) : [...current, insight.id]))}
                />
                {insight.name}
              </label>
            );
          })}
          {errors.fields.dashboard_export_insights && <p className="text-sm text-red-700">{errors.fields.dashboard_export_insights}</p>}
        </fieldset>
      )}
      <div className="flex justify-end gap-2 border-t border-gray-100 pt-4">
        <Button variant="secondary" type="button" onClick={onDone} data-testid="subscription-cancel">
          Cancel
        </Button>
        <Button type="submit" loading={create.isPending} data-testid="subscription-save">
          Subscribe
        </Button>
      </div>
    </form>
  );
}
