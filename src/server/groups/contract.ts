/** PostHog allows five group types per project, indexes 0–4. */
export const MAX_GROUP_TYPES = 5;
