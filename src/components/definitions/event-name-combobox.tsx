"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Combobox } from "@/components/ui/combobox";
import { useTRPC } from "@/trpc/react";
import { formatVolume } from "./format";
import type { SuggestionInputProps } from "./types";
import { skipToken, useDebouncedValue, useSuggestionProject, useWanted } from "./use-suggestions";

/** An event name, with the project's event names containing the typed text, most used first. */
export function EventNameCombobox({ value, onChange, projectId, placeholder = "Event name, e.g. $pageview", ...rest }: SuggestionInputProps) {
  const trpc = useTRPC();
  const project = useSuggestionProject(projectId);
  const [wanted, want] = useWanted();
  const search = useDebouncedValue(value.trim());
  const query = useQuery({
    ...trpc.definitions.events.queryOptions(project === null || !wanted ? skipToken : { projectId: project, search, limit: 20 }),
    placeholderData: keepPreviousData,
  });
  const options = (query.data ?? []).map((definition) => ({ value: definition.name, detail: formatVolume(definition.volume_30_day) }));
  return (
    <Combobox
      {...rest}
      value={value}
      onChange={onChange}
      placeholder={placeholder}
      options={options}
      loading={wanted && query.isPending}
      error={query.isError}
      onFocus={want}
    />
  );
}
