"use client";

import { EventNameCombobox, PropertyKeyCombobox, PropertyValueCombobox } from "@/components/definitions";

/**
 * The editor's name pickers over the definitions comboboxes (suggestions from the project's
 * data, most used first). An empty event means all events (PostHog's `event: null`).
 */
export function EventNamePicker({
  projectId,
  label,
  value,
  onChange,
  testId,
  className,
  visibleLabel = false,
}: {
  projectId: number;
  label: string;
  value: string | null;
  onChange: (event: string | null) => void;
  testId?: string;
  className?: string;
  visibleLabel?: boolean;
}) {
  return (
    <EventNameCombobox
      projectId={projectId}
      {...(visibleLabel ? { label } : { "aria-label": label })}
      value={value ?? ""}
      onChange={(text) => onChange(text === "" ? null : text)}
      placeholder="All events"
      testId={testId}
      className={className}
    />
  );
}

export function PropertyKeyPicker({
  projectId,
  type,
  label,
  value,
  onChange,
  placeholder,
  testId,
  className,
  eventNames,
}: {
  projectId: number;
  type: "event" | "person";
  label: string;
  value: string;
  onChange: (key: string) => void;
  placeholder?: string;
  testId?: string;
  className?: string;
  /** Events whose properties come first. */
  eventNames?: string[];
}) {
  return (
    <PropertyKeyCombobox
      projectId={projectId}
      type={type}
      eventNames={eventNames}
      aria-label={label}
      value={value}
      onChange={onChange}
      placeholder={placeholder}
      testId={testId}
      className={className}
    />
  );
}

export function PropertyValuePicker({
  projectId,
  type,
  propertyKey,
  label,
  value,
  onChange,
  disabled,
  placeholder,
  testId,
}: {
  projectId: number;
  type: "event" | "person";
  propertyKey: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
  placeholder: string;
  testId?: string;
}) {
  return (
    <PropertyValueCombobox
      projectId={projectId}
      type={type}
      propertyKey={disabled ? "" : propertyKey}
      aria-label={label}
      value={value}
      onChange={onChange}
      disabled={disabled}
      placeholder={placeholder}
      testId={testId}
    />
  );
}
