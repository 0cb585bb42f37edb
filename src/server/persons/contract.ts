/**
 * The persons API's contract (PostHog's `PersonViewSet`): what the list, the person and its
 * actions accept, their limits and PostHog's messages. REST, tRPC and the UI's forms use
 * these schemas.
 */
import { z } from "zod";
import { AppError } from "@/server/errors";
import { canonicalUuid, parsePropertiesParam } from "@/server/events/contract";
import { drfBoolean } from "@/server/input/drf";
import { hasNul, NUL_MESSAGE } from "@/server/input/nul";
import { queryCount, queryText } from "@/server/input/query-param";
import { INT4_MAX } from "@/server/input/record-id";
import { storableText } from "@/server/properties/coerce";
import type { PropertyGroup } from "@/server/properties/contract";

export const PERSON_LIMITS = {
  defaultLimit: 100,
  maxLimit: 1000,
  /** Offsets past this read nothing useful and would only cost a scan. */
  maxOffset: 1_000_000,
  /** PostHog's bound on `bulk_delete`'s lists. */
  maxBulk: 1000,
  maxText: 10_000,
  maxKeyLength: 1000,
  maxPropertiesJson: 200_000,
} as const;

export const NOT_A_PERSON_ID =
  "The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=... instead.";
export const CREATE_NOT_ALLOWED = "Creating persons via this API is not allowed. Please create persons by sending an $identify event. See https://posthog.com/docs/product-analytics/identify for details.";
export const BULK_DELETE_NEEDS_IDS = "You need to specify either distinct_ids or ids";

/** A person named in a path: its uuid, or its integer key. */
export type PersonKey = { uuid: string } | { id: number };

/** PostHog's `get_pk_or_uuid`: a uuid is a uuid, digits are the key, anything else is a 400. */
export function parsePersonKey(value: string): PersonKey {
  const uuid = canonicalUuid(value);
  if (uuid) return { uuid };
  // A number is a key; one no row can have (negative, fractional, huge) is not found, as any unknown id.
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value)) {
    const id = Number(value);
    if (!Number.isInteger(id) || id < 1 || id > INT4_MAX) throw new AppError("not_found", "Not found.");
    return { id };
  }
  throw new AppError("invalid_input", NOT_A_PERSON_ID);
}

/**
 * The list's `properties` filter: the events API's JSON list, except that a NUL escaped inside
 * it (`"p\u0000ro"`) is the 400 every management parameter answers (docs/configuration.md),
 * not read as U+FFFD as the events API reads it: it answered 200 (issue 32).
 */
function personPropertiesParam(value: string): PropertyGroup | null {
  // Only an escape can put U+0000 in the parsed JSON (a raw one is refused with every parameter).
  if (value.includes("\\u0000")) {
    const refuse = (key: string, item: unknown) => {
      if (hasNul(key) || (typeof item === "string" && hasNul(item))) throw new AppError("invalid_input", NUL_MESSAGE, "properties");
      return item;
    };
    try {
      JSON.parse(value, refuse);
    } catch (error) {
      if (error instanceof AppError) throw error;
    }
  }
  return parsePropertiesParam(value);
}

const text = (name: string) => queryText(name, PERSON_LIMITS.maxText);
const count = queryCount;

/** `GET /persons/`: PostHog's filters and offset pagination. */
export const personListQuery = z
  .object({
    distinct_id: text("distinct_id").optional(),
    email: text("email").optional(),
    search: text("search").optional(),
    properties: z
      .string({ error: "properties must be given once." })
      .max(PERSON_LIMITS.maxPropertiesJson, `properties must be at most ${PERSON_LIMITS.maxPropertiesJson} characters.`)
      .optional(),
    limit: count("limit", PERSON_LIMITS.maxLimit).optional(),
    offset: count("offset", PERSON_LIMITS.maxOffset).optional(),
  })
  .transform((raw): PersonListInput => ({
    distinctId: raw.distinct_id ?? null,
    email: raw.email ?? null,
    search: raw.search?.trim() || null,
    properties: raw.properties === undefined ? null : personPropertiesParam(raw.properties),
    // 0 reads as the default, as DRF does.
    limit: raw.limit || PERSON_LIMITS.defaultLimit,
    offset: raw.offset ?? 0,
  }));

/** The list's filters once checked (what the service takes; tRPC builds it from `personListInput`). */
export interface PersonListInput {
  distinctId: string | null;
  email: string | null;
  search: string | null;
  properties: PropertyGroup | null;
  limit: number;
  offset: number;
}

/** The same list for tRPC and the UI: typed fields, `properties` as the filter JSON text. */
export const personListInput = z.object({
  search: z.string().max(PERSON_LIMITS.maxText).transform(storableText).optional(),
  distinctId: z.string().max(PERSON_LIMITS.maxText).transform(storableText).optional(),
  email: z.string().max(PERSON_LIMITS.maxText).transform(storableText).optional(),
  properties: z.string().max(PERSON_LIMITS.maxPropertiesJson).optional(),
  limit: z.number().int().min(1).max(PERSON_LIMITS.maxLimit).optional(),
  offset: z.number().int().min(0).max(PERSON_LIMITS.maxOffset).optional(),
});

export function listInputOf(input: z.infer<typeof personListInput>): PersonListInput {
  return {
    distinctId: input.distinctId || null,
    email: input.email || null,
    search: input.search?.trim() || null,
    properties: input.properties ? personPropertiesParam(input.properties) : null,
    limit: input.limit ?? PERSON_LIMITS.defaultLimit,
    offset: input.offset ?? 0,
  };
}

const propertyKey = z
  .string({ error: "A property key must be a string." })
  .min(1, "A property key must not be empty.")
  .max(PERSON_LIMITS.maxKeyLength, `A property key must be at most ${PERSON_LIMITS.maxKeyLength} characters.`);

/** Any JSON value, bounded in size (a person's properties are stored as one jsonb). */
const propertyValue = z.unknown().refine((value) => value !== undefined && JSON.stringify(value).length <= PERSON_LIMITS.maxPropertiesJson, {
  message: `A property value must be JSON of at most ${PERSON_LIMITS.maxPropertiesJson} characters.`,
});

/** `PATCH`/`PUT /persons/:id/`: `properties` is a `$set`. */
export const personUpdateBody = z.object({
  properties: z
    .record(propertyKey, propertyValue, { error: "properties must be an object of person properties." })
    .refine((value) => JSON.stringify(value).length <= PERSON_LIMITS.maxPropertiesJson, `properties must be at most ${PERSON_LIMITS.maxPropertiesJson} characters of JSON.`),
});
export type PersonUpdateBody = z.infer<typeof personUpdateBody>;

/** `POST /persons/:id/delete_property/`: `{"$unset": "key"}`. */
export const deletePropertyBody = z.object({ $unset: propertyKey });

/** `POST /persons/:id/update_property/`: one `$set`. */
export const updatePropertyBody = z.object({ key: propertyKey, value: propertyValue });

/**
 * `delete_events` on `DELETE /persons/:id/`. PostHog deletes events when the parameter is
 * present at all, whatever its value; here an explicit false (`false`, `0`, `no`, `off`)
 * keeps them, since deleting what the caller said to keep cannot be undone.
 */
export const personDeleteQuery = z
  .object({ delete_events: z.string({ error: "delete_events must be given once." }).max(10).optional() })
  .transform(({ delete_events }) => ({ deleteEvents: delete_events !== undefined && !["false", "0", "no", "off"].includes(delete_events.trim().toLowerCase()) }));

const idList = (name: string) =>
  z
    .array(z.string({ error: `${name} must be a list of strings.` }).min(1).max(PERSON_LIMITS.maxText), { error: `${name} must be a list of strings.` })
    .max(PERSON_LIMITS.maxBulk, `You can only pass ${PERSON_LIMITS.maxBulk} ${name} at a time.`);

/** `POST /persons/bulk_delete/`: persons by distinct id or by uuid. */
export const bulkDeleteBody = z
  .object({
    distinct_ids: idList("distinct_ids").optional(),
    ids: idList("ids").optional(),
    delete_events: drfBoolean.optional(),
  })
  .transform((raw, ctx) => {
    if (!raw.distinct_ids?.length && !raw.ids?.length) {
      ctx.addIssue({ code: "custom", message: BULK_DELETE_NEEDS_IDS });
      return z.NEVER;
    }
    const uuids = (raw.ids ?? []).map((id) => canonicalUuid(id));
    const bad = uuids.indexOf(null);
    if (bad !== -1) {
      ctx.addIssue({ code: "custom", message: `ids[${bad}] is not a person uuid.`, path: ["ids"] });
      return z.NEVER;
    }
    return { distinctIds: (raw.distinct_ids ?? []).map(storableText), uuids: uuids as string[], deleteEvents: raw.delete_events ?? false };
  });
export type BulkDeleteInput = z.output<typeof bulkDeleteBody>;

/** tRPC's and the UI's name for a person: its uuid or integer key, as in the REST path. */
export const personKeyInput = z.object({ id: z.string().min(1).max(64) });

/** What a deletion of a person's events has done so far. */
export interface PersonDeletionStatus {
  id: number;
  person_uuid: string;
  deleted_events: number;
  attempts: number;
  last_error: string | null;
  created_at: string;
  finished_at: string | null;
}

/** A cohort the person is in, as `GET /persons/:id/cohorts/` lists it (PostHog's cohort fields that a list needs). */
export const personCohortSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string(),
    is_static: z.boolean(),
    count: z.number().int().nullable(),
    is_calculating: z.boolean(),
    last_calculation: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    deleted: z.literal(false),
  })
  .meta({ id: "PersonCohort" });
export type PersonCohort = z.infer<typeof personCohortSchema>;

// What the persons API answers (the OpenAPI document's schemas; present.ts builds them).

/** A person in a list (PostHog's SerializedPerson; also a cohort's members): `id` is the uuid. */
export const personListItemSchema = z
  .object({
    type: z.literal("person"),
    id: z.string(),
    uuid: z.string(),
    /** The first of PostHog's display-name properties (email, name, username …), else a distinct id. */
    name: z.string(),
    /** The ones a person chose (not uuid-like) first. */
    distinct_ids: z.array(z.string()),
    properties: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
    /** When the person's latest event happened, where the list knows it. */
    last_seen_at: z.iso.datetime().nullable(),
    is_identified: z.boolean(),
    matched_recordings: z.array(z.never()),
    value_at_data_point: z.null(),
  })
  .meta({ id: "PersonListItem" });
export type PersonListItem = z.infer<typeof personListItemSchema>;

/** `GET /persons/:id/` (PostHog's PersonSerializer): `id` is the integer key here. */
export const personSchema = z
  .object({
    id: z.number().int(),
    uuid: z.string(),
    name: z.string(),
    distinct_ids: z.array(z.string()),
    properties: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
    is_identified: z.boolean(),
  })
  .meta({ id: "Person" });
export type PersonResource = z.infer<typeof personSchema>;
