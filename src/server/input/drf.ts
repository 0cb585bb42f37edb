/**
 * Django REST Framework's input coercions as zod building blocks, for the contracts of every
 * domain: PostHog's clients send DRF's spellings, in JSON bodies and query strings alike.
 */
import { z } from "zod";

/** DRF's BooleanField: JSON booleans (and the strings and numbers it also accepts). */
export const drfBoolean = z.preprocess(
  (value) => {
    if (typeof value === "string") {
      const lower = value.toLowerCase();
      if (["true", "1", "yes", "on"].includes(lower)) return true;
      if (["false", "0", "no", "off"].includes(lower)) return false;
    }
    if (value === 1) return true;
    if (value === 0) return false;
    return value;
  },
  z.boolean({ error: "Must be a valid boolean." }),
);
