/**
 * The first queries of the replay page, built here for both sides: its server page prefetches
 * them (src/trpc/server.ts) and the client list asks for them, so the query keys match and the
 * HTML holds the list. The filters and page live in the URL.
 */
import { pageParam } from "@/components/ui/page-param";

export const RECORDINGS_PAGE_SIZE = 25;
export const RANGES = [
  { value: "-24h", label: "Last 24 hours" },
  { value: "-3d", label: "Last 3 days" },
  { value: "-7d", label: "Last 7 days" },
  { value: "-30d", label: "Last 30 days" },
  { value: "-1y", label: "Last year" },
] as const;
export const DURATIONS = [
  { value: "0", label: "Any length" },
  { value: "5", label: "Over 5 seconds" },
  { value: "30", label: "Over 30 seconds" },
  { value: "60", label: "Over 1 minute" },
  { value: "300", label: "Over 5 minutes" },
] as const;

/** The list's filters and page, as the URL says them (unknown values fall back to the defaults). */
export function recordingListParams(params: Pick<URLSearchParams, "get">) {
  return {
    range: RANGES.some((r) => r.value === params.get("range")) ? params.get("range")! : "-7d",
    minDuration: DURATIONS.some((d) => d.value === params.get("min")) ? params.get("min")! : "0",
    person: params.get("person") ?? "",
    distinctId: params.get("distinct_id") ?? "",
    errors: params.get("errors") === "1",
    // "Events performed": sessions with this event (and, from /web's page rows, on this path).
    performed: params.get("event") ?? "",
    path: params.get("path") ?? "",
    page: pageParam(params),
  };
}

export function recordingListInput(projectId: number, { range, minDuration, person, distinctId, errors, performed, path, page }: ReturnType<typeof recordingListParams>) {
  return {
    projectId,
    date_from: range,
    person_uuid: /^[0-9a-f-]{36}$/i.test(person) ? person : undefined,
    distinct_ids: distinctId ? [distinctId] : undefined,
    having_predicates: minDuration !== "0" ? [{ key: "duration" as const, operator: "gt" as const, value: Number(minDuration) }] : undefined,
    console_log_filters: errors ? [{ key: "level" as const, value: ["error" as const] }] : undefined,
    events: performed ? [{ id: performed, type: "events" as const, properties: path ? [{ key: "$pathname", value: path, operator: "exact" as const, type: "event" as const }] : undefined }] : undefined,
    limit: RECORDINGS_PAGE_SIZE,
    offset: page * RECORDINGS_PAGE_SIZE,
  };
}
