import type { BadgeTone } from "@/components/ui";
import type { HogFunctionResource } from "@/server/destinations/present";

export function urlOf(destination: HogFunctionResource): string {
  const value = destination.inputs.url?.value;
  return typeof value === "string" ? value : "";
}

/** Enabled, paused, or the circuit open (the receiver kept failing: attempts wait a while). */
export function stateBadge(destination: HogFunctionResource): { label: string; tone: BadgeTone } {
  if (!destination.enabled) return { label: "Paused", tone: "neutral" };
  if (destination.status.state === 3) return { label: "Receiver failing: paused for a while", tone: "danger" };
  if (destination.status.state === 2) return { label: "Failing", tone: "warning" };
  return { label: "Active", tone: "success" };
}

export const DELIVERY_TONES: Record<string, BadgeTone> = { delivered: "success", retrying: "warning", failed: "danger", skipped: "neutral" };
