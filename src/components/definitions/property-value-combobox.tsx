"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Combobox } from "@/components/ui/combobox";
import type { PropertyDefinitionType } from "@/server/definitions/contract";
import { useTRPC } from "@/trpc/react";
import type { SuggestionInputProps } from "./types";
import { skipToken, useDebouncedValue, useSuggestionProject, useWanted } from "./use-suggestions";

export interface PropertyValueComboboxProps extends SuggestionInputProps {
  /** The property whose values are offered; none are without one. */
  propertyKey: string;
  type: PropertyDefinitionType;
  /** Event property values of this event only. */
  eventName?: string;
}

const textOf = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * A property value, with the property's values most frequent first: event values starting
 * with the typed text (the events `values` API's rule), person values containing it.
 */
export function PropertyValueCombobox({ value, onChange, projectId, propertyKey, type, eventName, placeholder = "Value", ...rest }: PropertyValueComboboxProps) {
  const trpc = useTRPC();
  const project = useSuggestionProject(projectId);
  const [wanted, want] = useWanted();
  const search = useDebouncedValue(value.trim());
  const key = propertyKey.trim();
  const query = useQuery({
    ...trpc.definitions.values.queryOptions(
      project === null || !wanted || key === "" ? skipToken : { projectId: project, key, type, search, eventName: eventName || undefined },
    ),
    placeholderData: keepPreviousData,
  });
  const options = [...new Set((query.data ?? []).map((row) => textOf(row.name)))].map((text) => ({ value: text }));
  return (
    <Combobox
      {...rest}
      value={value}
      onChange={onChange}
      placeholder={placeholder}
      options={key === "" ? [] : options}
      loading={wanted && key !== "" && query.isPending}
      error={query.isError}
      onFocus={want}
    />
  );
}
