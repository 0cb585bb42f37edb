/**
 * Early-access features end to end: the REST API (PostHog's fields, the flag made with a
 * feature, stage changes moving the enrolment condition), the public list posthog-js reads,
 * and enrolment as posthog-js does it — a `$feature_enrollment_update` event whose `$set`
 * reaches the person through /batch/, after which /flags and /decide answer the flag true
 * for that person only.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { handleDecide, handleFlags } from "@/server/http/sdk/flags";
import { handleEarlyAccessFeatures } from "@/server/http/sdk/product-lists";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";

let db: Database;
let projectId: number;
let apiKey: string;
let token: string;
const list = restRoute("projects", "early_access_features");
const one = restRoute("projects", "early_access_features/:id");
const flagList = restRoute("projects", "feature_flags");
const flagOne = restRoute("projects", "feature_flags/:id");

type Json = Record<string, any>;

const call = projectApiCaller(() => ({ projectId, apiKey }));

const create = (body: unknown) => call(list.POST, "POST", "early_access_features/", {}, body);
const patch = (id: string, body: unknown) => call(one.PATCH, "PATCH", `early_access_features/${id}/`, { id }, body);

async function publicList(query: string) {
  const response = await handleEarlyAccessFeatures(new Request(`http://burrow.test/api/early_access_features/?token=${token}${query}`));
  return { status: response.status, body: (await response.json()) as Json };
}

async function flagsFor(distinctId: string, endpoint: "flags" | "decide" = "flags", personProperties?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const handler = endpoint === "flags" ? handleFlags : handleDecide;
  const path = endpoint === "flags" ? "/flags/?v=2" : "/decide/?v=3";
  const response = await handler(
    new Request(`http://burrow.test${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, distinct_id: distinctId, ...(personProperties ? { person_properties: personProperties } : {}) }) }),
  );
  const body = (await response.json()) as Json;
  if (endpoint === "decide") return body.featureFlags;
  return Object.fromEntries(Object.entries(body.flags as Record<string, Json>).map(([key, flag]) => [key, flag.enabled ? (flag.variant ?? true) : false]));
}

/** posthog-js's `updateEarlyAccessFeatureEnrollment(key, enrolled)`, as the event it captures. */
async function enrol(distinctId: string, flagKey: string, enrolled: boolean) {
  await sendBatch(token, [
    {
      uuid: randomUUID(),
      event: "$feature_enrollment_update",
      distinct_id: distinctId,
      properties: { $feature_flag: flagKey, $feature_enrollment: enrolled, $set: { [`$feature_enrollment/${flagKey}`]: enrolled } },
    },
  ]);
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "eaf@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  token = owner.project_api_key;
});

afterAll(() => closeDb());

describe(`early access features (${testDbKind})`, () => {
  let betaId = "";

  it("creates a feature with its flag: the key from the name, off for everyone, the enrolment condition for a release stage", async () => {
    const created = await create({ name: "Dark Mode 2!", description: "Night colours", stage: "beta", documentation_url: "https://docs.example/dark" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    betaId = created.body!.id;
    expect(created.body).toMatchObject({ name: "Dark Mode 2!", description: "Night colours", stage: "beta", documentation_url: "https://docs.example/dark", payload: {} });
    const flag = created.body!.feature_flag;
    expect(flag).toMatchObject({ key: "dark-mode-2", name: "Feature Flag for Feature Dark Mode 2!", team_id: projectId, active: true, deleted: false });
    expect(flag.filters.groups).toEqual([{ properties: [], rollout_percentage: 0, variant: null }]);
    expect(flag.filters.super_groups).toEqual([{ properties: [{ key: "$feature_enrollment/dark-mode-2", type: "person", operator: "exact", value: ["true"] }], rollout_percentage: 100, variant: null }]);
    expect(flag.filters.feature_enrollment).toBe(true);
    const got = await call(one.GET, "GET", `early_access_features/${betaId}/`, { id: betaId });
    expect(got.body).toEqual(created.body);
  });

  it("a draft's flag has no enrolment condition; promoting adds it, demoting removes it", async () => {
    const draft = await create({ name: "Reports v2", stage: "draft" });
    expect(draft.status).toBe(201);
    expect(draft.body!.feature_flag.filters.super_groups).toBeUndefined();
    const promoted = await patch(draft.body!.id, { stage: "alpha" });
    expect(promoted.status).toBe(200);
    expect(promoted.body!.feature_flag.filters.super_groups[0].properties[0].key).toBe("$feature_enrollment/reports-v2");
    const archived = await patch(draft.body!.id, { stage: "archived" });
    expect(archived.body!.stage).toBe("archived");
    expect(archived.body!.feature_flag.filters.super_groups).toBeNull();
  });

  it("takes an existing boolean person flag, and refuses one that backs a feature, a multivariate or a group flag", async () => {
    const made = await call(flagList.POST, "POST", "feature_flags/", {}, { key: "own-flag", filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
    expect(made.status).toBe(201);
    const linked = await create({ name: "Own", stage: "concept", feature_flag_id: made.body!.id });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    expect(linked.body!.feature_flag.key).toBe("own-flag");
    expect(linked.body!.feature_flag.filters.groups[0].rollout_percentage).toBe(50);
    const again = await create({ name: "Own again", stage: "beta", feature_flag_id: made.body!.id });
    expect(again.status).toBe(400);
    expect(again.body!.attr).toBe("feature_flag_id");
    const multi = await call(flagList.POST, "POST", "feature_flags/", {}, {
      key: "multi",
      filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 50 }] } },
    });
    const refused = await create({ name: "Multi", stage: "beta", feature_flag_id: multi.body!.id });
    expect(refused.status).toBe(400);
    expect(refused.body!.detail).toBe("Multivariate feature flags are not supported for Early Access Features.");
    expect((await create({ name: "Nothing", stage: "beta", feature_flag_id: 999999 })).status).toBe(400);
  });

  it("two features on one flag at once: one takes it, the other is a 400, and the flag's enrolment follows the one made", async () => {
    const made = await call(flagList.POST, "POST", "feature_flags/", {}, { key: `raced-${randomUUID().slice(0, 8)}`, filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
    expect(made.status).toBe(201);
    const answers = await Promise.all([
      create({ name: "Raced draft", stage: "draft", feature_flag_id: made.body!.id }),
      create({ name: "Raced beta", stage: "beta", feature_flag_id: made.body!.id }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400]);
    const refused = answers.find((answer) => answer.status === 400)!;
    expect(refused.body!.attr).toBe("feature_flag_id");
    const kept = answers.find((answer) => answer.status === 201)!.body!;
    const flag = (await call(flagOne.GET, "GET", `feature_flags/${made.body!.id}/`, { id: String(made.body!.id) })).body!;
    expect(Boolean(flag.filters.feature_enrollment)).toBe(kept.stage === "beta");
    expect((await call(one.DELETE, "DELETE", `early_access_features/${kept.id}/`, { id: kept.id })).status).toBe(204);
  });

  it("refuses bad input with a 400 naming the field", async () => {
    for (const [body, attr] of [
      [{ stage: "beta" }, "name"],
      [{ name: "x", stage: "gamma" }, "stage"],
      [{ name: "x".repeat(201), stage: "beta" }, "name"],
      [{ name: "y", stage: "beta", documentation_url: "javascript:alert(1)" }, "documentation_url"],
      [{ name: "z", stage: "beta", payload: [1] }, "payload"],
      [{ name: "!!!", stage: "beta" }, "name"],
    ] as const) {
      const response = await create(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body!.attr).toBe(attr);
    }
    expect((await call(one.GET, "GET", "early_access_features/nope/", { id: "nope" })).status).toBe(404);
    expect((await call(one.GET, "GET", `early_access_features/${randomUUID()}/`, { id: randomUUID() })).status).toBe(404);
  });

  it("keeps the enrolment condition when the flag's groups are edited", async () => {
    const feature = (await call(one.GET, "GET", `early_access_features/${betaId}/`, { id: betaId })).body!;
    const flagId = String(feature.feature_flag.id);
    const edited = await call(flagOne.PATCH, "PATCH", `feature_flags/${flagId}/`, { id: flagId }, { filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
    expect(edited.status).toBe(200);
    expect(edited.body!.filters.super_groups).toHaveLength(1);
  });

  it("lists the project's features by stage publicly, beta by default, as posthog-js reads them", async () => {
    const beta = await publicList("");
    expect(beta.status).toBe(200);
    expect(beta.body.earlyAccessFeatures).toEqual([
      { id: betaId, name: "Dark Mode 2!", description: "Night colours", stage: "beta", documentationUrl: "https://docs.example/dark", flagKey: "dark-mode-2", payload: {} },
    ]);
    const several = await publicList("&stage=concept&stage=beta");
    expect(several.body.earlyAccessFeatures.map((feature: Json) => feature.flagKey).sort()).toEqual(["dark-mode-2", "own-flag"]);
    expect((await publicList("&stage=general-availability")).body.earlyAccessFeatures).toEqual([]);
    expect((await publicList("&stage=gamma")).status).toBe(400);
    const unknown = await handleEarlyAccessFeatures(new Request("http://burrow.test/api/early_access_features/?token=phc_nobody"));
    expect(unknown.status).toBe(401);
  });

  it("opting in through an event turns the flag on for that person on the next /flags and /decide; opting out turns it off", async () => {
    expect((await flagsFor("eve"))["dark-mode-2"]).toBe(false);
    await enrol("eve", "dark-mode-2", true);
    expect((await flagsFor("eve"))["dark-mode-2"]).toBe(true);
    expect((await flagsFor("eve", "decide"))["dark-mode-2"]).toBe(true);
    expect((await flagsFor("mallory"))["dark-mode-2"]).toBe(false);
    const enrolled = await call(restRoute("projects", "early_access_features/:id/enrolled").GET, "GET", `early_access_features/${betaId}/enrolled/`, { id: betaId });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body!.results.map((person: Json) => person.distinct_id)).toEqual(["eve"]);
    await enrol("eve", "dark-mode-2", false);
    expect((await flagsFor("eve"))["dark-mode-2"]).toBe(false);
    // posthog-js sends the stored property with the next request, before ingestion has it.
    expect((await flagsFor("ivan", "flags", { "$feature_enrollment/dark-mode-2": true }))["dark-mode-2"]).toBe(true);
  });

  it("deleting a feature keeps its flag without the enrolment condition", async () => {
    const feature = (await call(one.GET, "GET", `early_access_features/${betaId}/`, { id: betaId })).body!;
    const deleted = await call(one.DELETE, "DELETE", `early_access_features/${betaId}/`, { id: betaId });
    expect(deleted.status).toBe(204);
    const flagId = String(feature.feature_flag.id);
    const flag = await call(flagOne.GET, "GET", `feature_flags/${flagId}/`, { id: flagId });
    expect(flag.body!.deleted).toBe(false);
    expect(flag.body!.filters.super_groups).toBeNull();
    expect((await publicList("")).body.earlyAccessFeatures).toEqual([]);
  });
});
