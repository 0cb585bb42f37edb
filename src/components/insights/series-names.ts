/** PostHog's breakdown markers, shown in words wherever a breakdown value is named. */
export const BREAKDOWN_OTHER = "$$_posthog_breakdown_other_$$";
export const BREAKDOWN_NULL = "$$_posthog_breakdown_null_$$";

/** A breakdown value in words: arrays (funnels box values) joined, markers named, empty as "(none)". */
export function breakdownName(value: unknown): string {
  if (Array.isArray(value)) return value.map(breakdownName).join(", ");
  if (value === BREAKDOWN_OTHER || value === "Other") return "Other";
  if (value === BREAKDOWN_NULL || value === null || value === undefined || value === "") return "(none)";
  return String(value);
}
