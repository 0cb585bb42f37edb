"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Combobox } from "@/components/ui/combobox";
import type { PropertyDefinitionType } from "@/server/definitions/contract";
import { useTRPC } from "@/trpc/react";
import type { SuggestionInputProps } from "./types";
import { skipToken, useDebouncedValue, useSuggestionProject, useWanted } from "./use-suggestions";

export interface PropertyKeyComboboxProps extends SuggestionInputProps {
  /** Event properties or person properties. */
  type: PropertyDefinitionType;
  /** Event properties seen on these events are offered first. */
  eventNames?: readonly string[];
}

/** A property key, with the project's keys of that type containing the typed text, most used first. */
export function PropertyKeyCombobox({ value, onChange, projectId, type, eventNames, placeholder, ...rest }: PropertyKeyComboboxProps) {
  const trpc = useTRPC();
  const project = useSuggestionProject(projectId);
  const [wanted, want] = useWanted();
  const search = useDebouncedValue(value.trim());
  const events = eventNames && eventNames.length > 0 ? [...eventNames] : undefined;
  const query = useQuery({
    ...trpc.definitions.properties.queryOptions(project === null || !wanted ? skipToken : { projectId: project, search, type, eventNames: events, limit: 20 }),
    placeholderData: keepPreviousData,
  });
  const options = (query.data ?? []).map((definition) => ({ value: definition.name, detail: definition.property_type ?? undefined }));
  return (
    <Combobox
      {...rest}
      value={value}
      onChange={onChange}
      placeholder={placeholder ?? (type === "person" ? "Person property, e.g. email" : "Property key, e.g. $browser")}
      options={options}
      loading={wanted && query.isPending}
      error={query.isError}
      onFocus={want}
    />
  );
}
