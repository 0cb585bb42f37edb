/**
 * What the SDK endpoints (capture, /decide, /flags, local evaluation, remote config payloads, surveys and early access) say about a missing or
 * wrong project API key: PostHog's sentences, pointing at Burrow's settings instead of
 * PostHog's. One place, so the endpoints cannot drift apart again.
 */
const WHERE = "You can find your project API key in Burrow's project settings.";

export const INVALID_PROJECT_KEY = `Project API key invalid. ${WHERE}`;
/** Capture's wording (PostHog's `capture` service). */
export const CAPTURE_MISSING_PROJECT_KEY = `API key not provided. ${WHERE}`;
/** /decide's and /flags' wording (PostHog's `decide` view). */
export const FLAGS_MISSING_PROJECT_KEY = `No project API key provided. ${WHERE}`;
