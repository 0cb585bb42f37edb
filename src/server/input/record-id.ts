/**
 * Ids of stored rows as inputs. Every table's id is a PostgreSQL `integer` (int4), so an id
 * above 2³¹−1 can name no row, and sent to the database it fails the query ("out of range
 * for type integer"): it was a 500. Ids in bodies and tRPC inputs are bounded here (a 400
 * naming the field); ids in REST paths by `pathId` (a 404, as for any unknown id).
 */
import { z } from "zod";

/** The largest value of PostgreSQL's `integer`, the type of every id column. */
export const INT4_MAX = 2_147_483_647;

/** DRF's IntegerField messages, as PostHog answers a bad id in a body. */
const NOT_INTEGER = "A valid integer is required.";

/** A row id in a body or tRPC input: a positive integer within the id columns' range. */
export const recordId = (message: string = NOT_INTEGER) =>
  z
    .number({ error: message })
    .int(message)
    .min(1, "Ensure this value is greater than or equal to 1.")
    .max(INT4_MAX, `Ensure this value is less than or equal to ${INT4_MAX}.`);
