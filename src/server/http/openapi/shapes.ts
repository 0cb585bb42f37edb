/**
 * The envelopes and small answers the REST edge wraps around the domains' schemas, as zod
 * schemas for the OpenAPI document: DRF's pages, PostHog's error body, `{"success": true}`.
 */
import { z, type ZodType } from "zod";
import { APP_ERRORS } from "@/server/errors";

/** DRF's LimitOffsetPagination page (rest/pagination.ts `paginate`); `name` names the item in the document. */
export function pageOf(item: ZodType, name: string) {
  return z
    .object({
      count: z.number().int(),
      /** Absolute URLs on SITE_URL with the other query parameters kept. */
      next: z.string().nullable(),
      previous: z.string().nullable(),
      results: z.array(item),
    })
    .meta({ id: `Paginated${name}List` });
}

/** PostHog's persons list: offset links without a count (rest/pagination.ts `offsetLinks`). */
export function offsetPageOf(item: ZodType, name: string) {
  return z.object({ results: z.array(item), next: z.string().nullable(), previous: z.string().nullable() }).meta({ id: `OffsetPaginated${name}List` });
}

/** `{"results": [...]}` with no paging. */
export function resultsOf(item: ZodType, name: string) {
  return z.object({ results: z.array(item) }).meta({ id: `${name}Results` });
}

export const successSchema = z.object({ success: z.literal(true) }).meta({ id: "Success" });

const ERROR_TYPES = [...new Set([...Object.values(APP_ERRORS).map((error) => error.type), "server_error"])] as [string, ...string[]];

/** PostHog's management error body (rest/respond.ts): one error, the first. */
export const errorSchema = z
  .object({
    type: z.enum(ERROR_TYPES),
    code: z.string().describe("`invalid_input`, `not_authenticated`, `authentication_failed`, `permission_denied`, `not_found`, `method_not_allowed`, `throttled` … or PostHog's own code."),
    detail: z.string().describe("A sentence for people."),
    /** The field at fault (`filters__groups__0__rollout_percentage`), or null. */
    attr: z.string().nullable(),
  })
  .meta({ id: "Error" });
