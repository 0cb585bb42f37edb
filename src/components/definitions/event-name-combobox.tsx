"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Combobox } from "@/components/ui/combobox";
import { useTRPC } from "@/trpc/react";
import { formatVolume } from "./format";
import type { SuggestionInputProps } from "./types";
import { skipToken, useDebouncedValue, useSuggestionProject, useWanted } from "./use-suggestions";

/**
 * An event name, with the project's event names containing the typed text, most used first.
 * Focusing the field lists every event (most used first), even when it is filled, as
 * PostHog's picker does: typing narrows the list from there.
 */
export function EventNameCombobox({ value, onChange, projectId, placeholder = "Event name, e.g. $pageview", ...rest }: SuggestionInputProps) {
  const trpc = useTRPC();
  const project = useSuggestionProject(projectId);
  const [wanted, want] = useWanted();
  // True from focus until the first keystroke: the whole list, not the one event already chosen.
  const [browsing, setBrowsing] = useState(false);
  const typed = useDebouncedValue(value.trim());
  const search = browsing ? "" : typed;
  const query = useQuery({
    ...trpc.definitions.events.queryOptions(project === null || !wanted ? skipToken : { projectId: project, search, limit: 20 }),
    placeholderData: keepPreviousData,
  });
  const options = (query.data ?? []).map((definition) => ({ value: definition.name, detail: formatVolume(definition.volume_30_day) }));
  return (
    <Combobox
      {...rest}
      value={value}
      onChange={(next) => {
        // A keystroke narrows the list; picking an option (the whole name) ends the browsing too.
        setBrowsing(false);
        onChange(next);
      }}
      placeholder={placeholder}
      options={options}
      highlight={browsing ? "" : undefined}
      loading={wanted && query.isPending}
      error={query.isError}
      onFocus={() => {
        want();
        setBrowsing(true);
      }}
      openOnFocus
    />
  );
}
