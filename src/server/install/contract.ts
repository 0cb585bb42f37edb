import { z } from "zod";

/**
 * "Send a test event": the page's origin (where the browser sees Burrow), so the test
 * `$pageview` carries a URL and host like one posthog-js sends from that page.
 */
export const testEventInput = z.object({
  origin: z
    .string()
    .max(300)
    .regex(/^https?:\/\/[^/\s?#@]+$/, "Expected an origin such as https://burrow.example.com."),
});
export type TestEventInput = z.infer<typeof testEventInput>;

/** The library name the test event carries, so it can be told apart from an SDK's events. */
export const TEST_EVENT_LIB = "burrow-test-event";

export interface TestEventResult {
  uuid: string;
  event: string;
  distinctId: string;
  timestamp: string;
}
