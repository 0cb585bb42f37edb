/**
 * `bench:hot --platform`: what this wave added to every `/decide` and `/flags` answer, made
 * through the REST API as a user would: 20 running popover surveys (each with its internal
 * flag and a user targeting flag on a person property), 10 early-access features in beta
 * (each flag with its enrolment super condition), and 20 launched experiments, half of them
 * behind a 10 % holdout. Compare `/decide` and `/flags` with and without.
 */
export const PLATFORM = { surveys: 20, earlyAccess: 10, experiments: 20 } as const;

/** Which of them a run makes (issue 36 asks about surveys and early-access features alone, 37 about experiments). */
export type PlatformKind = "surveys" | "early-access" | "experiments";
export const PLATFORM_KINDS: readonly PlatformKind[] = ["surveys", "early-access", "experiments"];

/** `--platform-kinds surveys,early-access`: the kinds named, refusing unknown ones. */
export function platformKinds(list: string): Set<PlatformKind> {
  const kinds = list.split(",").map((kind) => kind.trim());
  const unknown = kinds.filter((kind) => !(PLATFORM_KINDS as readonly string[]).includes(kind));
  if (unknown.length > 0) throw new Error(`unknown platform kinds: ${unknown.join(", ")} (known: ${PLATFORM_KINDS.join(", ")})`);
  return new Set(kinds as PlatformKind[]);
}

/** What a run made, in words. */
export function describePlatform(kinds: ReadonlySet<PlatformKind>): string {
  const parts = [];
  if (kinds.has("surveys")) parts.push(`${PLATFORM.surveys} running surveys`);
  if (kinds.has("early-access")) parts.push(`${PLATFORM.earlyAccess} early-access features`);
  if (kinds.has("experiments")) parts.push(`${PLATFORM.experiments} experiments (half behind a holdout)`);
  return parts.join(", ");
}

/** Creates a project object as the REST API's `POST /api/projects/:id/<path>` does, answering its id. */
export type PlatformPoster = (path: string, body: unknown) => Promise<{ id: number | string }>;

/** A poster over HTTP to a running server. */
export function httpPoster(base: string, projectId: number, personalKey: string): PlatformPoster {
  return async (path, body) => {
    const response = await fetch(`${base}/api/projects/${projectId}/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${personalKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`POST ${path} failed: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: number | string };
  };
}

export async function createPlatformObjects(post: PlatformPoster, kinds: ReadonlySet<PlatformKind> = new Set(PLATFORM_KINDS)): Promise<void> {
  const now = new Date().toISOString();
  for (let i = 1; kinds.has("surveys") && i <= PLATFORM.surveys; i++) {
    await post("surveys/", {
      name: `bench survey ${i}`,
      type: "popover",
      questions: [{ type: "rating", question: "How likely are you to recommend us?", scale: 10 }],
      conditions: { url: `/page-${i}`, urlMatchType: "icontains" },
      targeting_flag_filters: { groups: [{ properties: [{ key: "plan", type: "person", operator: "exact", value: ["pro"] }], rollout_percentage: 100 }] },
      start_date: now,
    });
  }
  for (let i = 1; kinds.has("early-access") && i <= PLATFORM.earlyAccess; i++) await post("early_access_features/", { name: `bench feature ${i}`, description: "", stage: "beta" });
  if (!kinds.has("experiments")) return;
  const holdout = await post("experiment_holdouts/", { name: "bench holdout", filters: [{ properties: [], rollout_percentage: 10 }] });
  for (let i = 1; i <= PLATFORM.experiments; i++) {
    await post("experiments/", { name: `bench experiment ${i}`, feature_flag_key: `bench-experiment-${i}`, ...(i % 2 === 0 ? { holdout_id: holdout.id } : {}), start_date: now });
  }
}
