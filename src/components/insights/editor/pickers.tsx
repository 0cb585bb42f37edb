"use client";

import { useState } from "react";
import { cn } from "@/components/ui";
import { SuggestInput } from "./suggest-input";
import { useEventNames, usePropertyKeys, usePropertyValues } from "./suggestions";

/** Longer searches are cut (the definitions API refuses very long ones). */
const MAX_SEARCH = 100;

/**
 * The editor's name pickers: a text input with suggestions from the project's data. An
 * empty event means all events (PostHog's `event: null`).
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
  const [search, setSearch] = useState("");
  const { names, loading } = useEventNames(projectId, search.slice(0, MAX_SEARCH));
  const input = (
    <SuggestInput
      onSearch={setSearch}
      label={label}
      value={value ?? ""}
      onChange={(text) => onChange(text === "" ? null : text)}
      suggestions={names}
      loading={loading}
      placeholder="All events"
      testId={testId}
      className={visibleLabel ? undefined : className}
    />
  );
  if (!visibleLabel) return input;
  // The combobox keeps its aria-label; the visible text repeats it for sighted users.
  return (
    <div className={cn("flex min-w-0 flex-col gap-1.5", className)}>
      <span className="text-sm font-medium text-gray-800" aria-hidden="true">
        {label}
      </span>
      {input}
    </div>
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
  /** Events whose properties come first. */
  eventNames?: string[];
  placeholder?: string;
  testId?: string;
  className?: string;
}) {
  const [search, setSearch] = useState("");
  const keys = usePropertyKeys(projectId, type, search.slice(0, MAX_SEARCH), eventNames);
  return (
    <SuggestInput
      onSearch={setSearch}
      loading={keys.loading}
      label={label}
      value={value}
      onChange={onChange}
      suggestions={keys.names}
      placeholder={placeholder ?? (type === "event" ? "Event property, e.g. $browser" : "Person property, e.g. email")}
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
  const [search, setSearch] = useState("");
  // A listed value ("a, b") searches by its last item.
  const last = search.split(",").pop() ?? "";
  const values = usePropertyValues(projectId, type, disabled ? "" : propertyKey, last.slice(0, MAX_SEARCH));
  return (
    <SuggestInput
      label={label}
      value={value}
      onChange={onChange}
      onSearch={setSearch}
      suggestions={values.names}
      loading={values.loading}
      disabled={disabled}
      placeholder={placeholder}
      testId={testId}
    />
  );
}
