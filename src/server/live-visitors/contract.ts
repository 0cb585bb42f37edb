import { z } from "zod";

/** "N visitors in the last 30 minutes", as PostHog's web analytics shows live users. */
export const LIVE_WINDOW_MINUTES = 30;

export const liveVisitorsInput = z.object({
  /** Only pageviews of this `$host` (the page's host filter); all hosts when absent. */
  host: z.string().min(1).max(1_000).optional(),
});
export type LiveVisitorsInput = z.infer<typeof liveVisitorsInput>;

export interface LiveVisitors {
  visitors: number;
  windowMinutes: number;
  /** When the count was taken (ISO). */
  at: string;
}
