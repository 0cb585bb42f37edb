import type { BadgeTone } from "@/components/ui";

/** An experiment's state from its dates, as PostHog shows it. */
export type ExperimentStatus = "draft" | "running" | "complete";

export function statusOf(experiment: { start_date: string | null; end_date: string | null }): ExperimentStatus {
  return experiment.start_date === null ? "draft" : experiment.end_date === null ? "running" : "complete";
}

export const STATUS_TONE: Record<ExperimentStatus, BadgeTone> = { draft: "neutral", running: "brand", complete: "success" };
