/**
 * Which of a person's properties the page lists: those whose name or value holds the search
 * text (any case), and the empty ones (null, "", [] or {} — the ~70 unset campaign properties
 * posthog-js sends as null) only on request.
 */
export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}

export interface VisibleProperties {
  shown: [string, unknown][];
  /** Empty properties matching the search that are hidden. */
  hiddenEmpty: number;
}

export function visibleProperties(properties: Record<string, unknown>, search: string, showEmpty: boolean): VisibleProperties {
  const needle = search.trim().toLowerCase();
  const matching = Object.entries(properties)
    .filter(([name, value]) => !needle || name.toLowerCase().includes(needle) || (value !== null && (typeof value === "string" ? value : JSON.stringify(value)).toLowerCase().includes(needle)))
    .sort(([a], [b]) => a.localeCompare(b));
  const shown = showEmpty ? matching : matching.filter(([, value]) => !isEmptyValue(value));
  return { shown, hiddenEmpty: matching.length - shown.length };
}
