/**
 * The SDKs' side of flags: the body of `/decide` and `/flags` as the SDK endpoints
 * (http/sdk/flags.ts) parse it. Apart from contract.ts, the management API's schemas.
 */
import { z } from "zod";

/**
 * The body of `/decide` and `/flags` as the SDKs send it (after ingestion's decoder):
 * PostHog's field names and aliases, lenient where the SDKs are loose (numbers for ids and
 * group keys), strict about shapes evaluation relies on.
 */
const id = z.union([z.string(), z.number().finite()]).transform(String);
const properties = z.record(z.string(), z.unknown());

export const flagsRequestSchema = z
  .looseObject({
    token: z.string().nullish(),
    api_key: z.string().nullish(),
    $token: z.string().nullish(),
    distinct_id: id.nullish(),
    $distinct_id: id.nullish(),
    $anon_distinct_id: id.nullish(),
    groups: z.record(z.string(), id.nullable()).nullish(),
    person_properties: properties.nullish(),
    group_properties: z.record(z.string(), properties.nullable()).nullish(),
    flag_keys_to_evaluate: z.array(z.string()).nullish(),
    flag_keys: z.array(z.string()).nullish(),
    geoip_disable: z.boolean().nullish(),
    disable_flags: z.boolean().nullish(),
  })
  .transform((body) => {
    const groups: Record<string, string> = {};
    for (const [type, key] of Object.entries(body.groups ?? {})) if (key !== null) groups[type] = key;
    const groupProperties: Record<string, Record<string, unknown>> = {};
    for (const [type, values] of Object.entries(body.group_properties ?? {})) if (values) groupProperties[type] = values;
    return {
      token: body.token ?? body.api_key ?? body.$token ?? null,
      distinctId: body.distinct_id ?? body.$distinct_id ?? null,
      anonDistinctId: body.$anon_distinct_id ?? null,
      groups,
      personProperties: body.person_properties ?? {},
      groupProperties,
      flagKeys: body.flag_keys_to_evaluate ?? body.flag_keys ?? null,
      geoipDisable: body.geoip_disable ?? false,
      disableFlags: body.disable_flags ?? false,
    };
  });

export type FlagsRequestBody = z.output<typeof flagsRequestSchema>;
