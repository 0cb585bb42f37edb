"use client";

import { SelectField, TextField } from "@/components/ui";
import type { MetricDraft, MetricType } from "./metric-draft";

/**
 * The metric's fields, as the experiment form and the shared-metric forms show them: its type,
 * its event, and for a mean the property summed. Laid out by the parent (they are its grid's
 * cells); test ids are `<testIdPrefix>-type`, `-event` and `-property`.
 */
export function MetricFields({
  draft,
  onChange,
  testIdPrefix,
  eventHint,
  eventError,
  required = false,
}: {
  draft: MetricDraft;
  onChange: (next: MetricDraft) => void;
  testIdPrefix: string;
  eventHint?: string;
  eventError?: string | null;
  /** The event must be given (a shared metric); else empty means no metric. */
  required?: boolean;
}) {
  return (
    <>
      <SelectField label="Metric type" value={draft.type} onChange={(e) => onChange({ ...draft, type: e.target.value as MetricType })} testId={`${testIdPrefix}-type`}>
        <option value="funnel">Conversion (funnel): did they do it?</option>
        <option value="mean">Mean: how much per person?</option>
      </SelectField>
      <TextField
        label="Metric event"
        hint={eventHint}
        error={eventError}
        value={draft.event}
        onChange={(e) => onChange({ ...draft, event: e.target.value })}
        placeholder="purchase"
        required={required}
        maxLength={200}
        testId={`${testIdPrefix}-event`}
      />
      {draft.type === "mean" && (
        <TextField label="Sum of property (empty: count events)" value={draft.property} onChange={(e) => onChange({ ...draft, property: e.target.value })} placeholder="amount" maxLength={400} testId={`${testIdPrefix}-property`} />
      )}
    </>
  );
}
