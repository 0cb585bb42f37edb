import type { BadgeTone } from "@/components/ui";
import type { AlertResource } from "@/server/alerts/contract";

export const STATE_TONES: Record<AlertResource["state"], BadgeTone> = { Firing: "danger", "Not firing": "success", Errored: "warning", Snoozed: "neutral" };

export const CONDITION_LABELS = { absolute_value: "Value", relative_increase: "Increase", relative_decrease: "Decrease" } as const;
export const INTERVAL_LABELS = { hourly: "Hourly", daily: "Daily", weekly: "Weekly", monthly: "Monthly" } as const;

function shown(value: number, percentage: boolean): string {
  return percentage ? `${Math.round(value * 10_000) / 100}%` : String(value);
}

/** "Value above 3", "Increase below 10% or above 50%". */
export function describeThreshold(alert: Pick<AlertResource, "threshold" | "condition">): string {
  const { bounds, type } = alert.threshold.configuration;
  const percentage = type === "percentage";
  const parts = [bounds.lower != null ? `below ${shown(bounds.lower, percentage)}` : null, bounds.upper != null ? `above ${shown(bounds.upper, percentage)}` : null].filter(Boolean);
  return `${CONDITION_LABELS[alert.condition.type]} ${parts.join(" or ")}`;
}

export function formatValue(value: number | null, alert: Pick<AlertResource, "threshold" | "condition">): string {
  if (value === null) return "—";
  return alert.condition.type !== "absolute_value" && alert.threshold.configuration.type === "percentage" ? shown(value, true) : String(Math.round(value * 1000) / 1000);
}
