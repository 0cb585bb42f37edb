/**
 * One outbox row as the request the webhook template makes: the globals (event, person,
 * project) from the stored event and the person as it is now, the inputs rendered over them,
 * sealed header values opened.
 */
import { serverEnvFrom } from "@/server/env";
import { isSealed, openSecret, type OutboundRequest } from "@/server/outbound/service";
import { destinationFiltersSchema, type DestinationFilters } from "./contract";
import { compileFilters, testAccountsFor, type MatchableEvent } from "./filters";
import type { HogFunctionForDelivery } from "./store";
import { renderJson, renderText, type TemplateGlobals } from "./template";

type Inputs = Record<string, { value?: unknown } | undefined>;

function siteUrl(): string {
  try {
    return serverEnvFrom().siteUrl;
  } catch {
    return "";
  }
}

function eventOf(payload: Record<string, unknown>): MatchableEvent & { uuid: string; timestamp: string } {
  return {
    uuid: String(payload.uuid ?? ""),
    event: String(payload.event ?? ""),
    distinctId: String(payload.distinct_id ?? ""),
    properties: (payload.properties && typeof payload.properties === "object" ? payload.properties : {}) as Record<string, unknown>,
    timestamp: String(payload.timestamp ?? ""),
    elementsChain: typeof payload.elements_chain === "string" ? payload.elements_chain : "",
  };
}

export function globalsFor(fn: Pick<HogFunctionForDelivery, "id" | "project_id" | "project_name" | "name">, payload: Record<string, unknown>, person: Record<string, unknown> | null): TemplateGlobals {
  const site = siteUrl();
  const event = eventOf(payload);
  const project = `${site}/project/${fn.project_id}`;
  const personId = typeof payload.person_id === "string" ? payload.person_id : null;
  return {
    event: {
      uuid: event.uuid,
      event: event.event,
      distinct_id: event.distinctId,
      properties: event.properties as Record<string, unknown>,
      timestamp: event.timestamp,
      elements_chain: event.elementsChain ?? "",
      url: `${project}/events/${encodeURIComponent(event.uuid)}/${encodeURIComponent(event.timestamp)}`,
    },
    person:
      personId === null
        ? null
        : {
            id: personId,
            name: String((person?.email as string | undefined) ?? event.distinctId),
            url: `${project}/person/${encodeURIComponent(event.distinctId)}`,
            properties: person ?? {},
          },
    project: { id: fn.project_id, name: fn.project_name, url: project },
    source: { name: fn.name, url: `${project}/pipeline/destinations/hog-${fn.id}/configuration` },
  };
}

/**
 * Whether the event still passes filters that read the person, against the person as it is
 * now (null: the filters do not read the person; ingestion decided). Listed actions were
 * checked at ingestion: here only the events (when no action is listed) and the properties.
 */
export function personCheck(filtersJson: unknown, testAccountFilters: unknown = null): ((payload: Record<string, unknown>, person: Record<string, unknown> | null) => boolean) | null {
  const parsed = destinationFiltersSchema.safeParse(filtersJson);
  if (!parsed.success) return null;
  const filters: DestinationFilters = { ...parsed.data, actions: [], events: parsed.data.actions.length > 0 ? [] : parsed.data.events };
  try {
    const compiled = compileFilters(filters, new Map(), testAccountsFor(parsed.data, testAccountFilters));
    return compiled.readsPerson ? (payload, person) => compiled.matches(eventOf(payload), person) : null;
  } catch {
    return null;
  }
}

export interface PreparedRequest {
  request: OutboundRequest;
}

/** A request that cannot be made from this destination's settings (a header a template broke, a secret sealed under another AUTH_SECRET): retrying cannot help. */
export class UndeliverableError extends Error {
  override name = "UndeliverableError";
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// RFC 9110 field values: visible characters, spaces and tabs (no CR, LF or NUL).
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;

function headerValue(name: string, value: unknown, globals: TemplateGlobals): string {
  let text: string;
  try {
    text = typeof value === "string" ? (isSealed(value) ? openSecret(value) : value) : String(value);
  } catch {
    throw new UndeliverableError(`The header ${name} holds a secret that cannot be opened (sealed under another AUTH_SECRET?): enter it again.`);
  }
  const rendered = renderText(text, globals);
  if (!HEADER_VALUE.test(rendered)) throw new UndeliverableError(`The header ${name} has a line break or control character once rendered.`);
  return rendered;
}

export function prepareRequest(fn: HogFunctionForDelivery, payload: Record<string, unknown>, person: Record<string, unknown> | null): PreparedRequest {
  const globals = globalsFor(fn, payload, person);
  const inputs = fn.inputs as Inputs;
  const method = String(inputs.method?.value ?? "POST").toUpperCase();
  const headers: Record<string, string> = {};
  const stored = inputs.headers?.value;
  if (stored && typeof stored === "object") {
    for (const [name, value] of Object.entries(stored as Record<string, unknown>)) {
      if (!HEADER_NAME.test(name)) throw new UndeliverableError(`"${name.slice(0, 100)}" is not a valid header name.`);
      headers[name] = headerValue(name, value, globals);
    }
  }
  const hasBody = method !== "GET" && method !== "DELETE";
  const body = inputs.body && "value" in inputs.body ? renderJson(inputs.body.value, globals) : { event: globals.event, person: globals.person };
  if (hasBody && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["Content-Type"] = "application/json";
  return {
    request: { url: renderText(String(inputs.url?.value ?? ""), globals), method, headers, body: hasBody ? JSON.stringify(body) : undefined },
  };
}
