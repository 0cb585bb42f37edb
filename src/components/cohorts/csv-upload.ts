/**
 * A static cohort's CSV goes to the REST resource as multipart form data (tRPC's JSON cannot
 * carry a file): POST to create, PATCH to add to an existing cohort. The browser session
 * authenticates it, as it does tRPC. A failure throws PostHog's error body (`{detail, attr}`).
 */
import type { CohortResource } from "@/server/cohorts/present";

export async function uploadCohortCsv(projectId: number, cohortId: number | null, file: File, fields: Record<string, string> = {}): Promise<CohortResource> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set("csv", file, file.name);
  const url = cohortId === null ? `/api/projects/${projectId}/cohorts/` : `/api/projects/${projectId}/cohorts/${cohortId}/`;
  let response: Response;
  try {
    response = await fetch(url, { method: cohortId === null ? "POST" : "PATCH", body: form, credentials: "same-origin" });
  } catch {
    throw { detail: "Could not reach Burrow. Check your connection and try again.", attr: null };
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = body && typeof body === "object" && "detail" in body ? body : { detail: response.status === 413 ? "The file is too large." : `Upload failed (${response.status}).`, attr: "csv" };
    throw error;
  }
  return body as CohortResource;
}
