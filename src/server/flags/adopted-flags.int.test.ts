/**
 * Surveys, early-access features and experiments may be given an existing flag (by id or
 * key), which they then change: turn on and off, reshape, add an enrolment condition to,
 * delete. A personal API key scoped to those objects alone must not reach a flag that way:
 * naming someone else's flag also takes `feature_flag:write`, and the flags a survey makes
 * for itself stay its own to change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";

let db: Database;
let projectId: number;
let ownerKey: string;
let narrowKey: string;
let broadKey: string;
const flags = restRoute("projects", "feature_flags");
const flagOne = restRoute("projects", "feature_flags/:id");
const surveys = restRoute("projects", "surveys");
const surveyOne = restRoute("projects", "surveys/:id");
const features = restRoute("projects", "early_access_features");
const experiments = restRoute("projects", "experiments");

const as = (key: () => string) => projectApiCaller(() => ({ projectId, apiKey: key() }));
const owner = as(() => ownerKey);
const narrow = as(() => narrowKey);
const broad = as(() => broadKey);
const DENIED = { status: 403, body: { type: "authentication_error", code: "permission_denied", detail: "API key missing required scope 'feature_flag:write'", attr: null } };

async function ownersFlag(key: string, filters: Record<string, unknown> = { groups: [{ properties: [], rollout_percentage: 30 }] }): Promise<{ id: number; key: string }> {
  const created = await owner(flags.POST, "POST", "feature_flags/", {}, { key, filters, active: false });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const flagNow = async (id: number) => (await owner(flagOne.GET, "GET", `feature_flags/${id}/`, { id: String(id) })).body;
const MULTIVARIATE = { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] } };

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const booted = await bootstrap(db.prisma, { email: "adopted-flags@example.com", password: "pw12345678" });
  projectId = booted.project_id;
  ownerKey = booted.personal_api_key;
  const scopes = ["survey:write", "early_access_feature:write", "experiment:write"] as const;
  narrowKey = (await createPersonalApiKey(db.prisma, booted.user.id, { scopes: [...scopes] })).key;
  broadKey = (await createPersonalApiKey(db.prisma, booted.user.id, { scopes: [...scopes, "feature_flag:write" as const] })).key;
});

afterAll(async () => {
  await closeDb();
});

describe(`flags named by surveys, early access and experiments (${testDbKind})`, () => {
  it("a survey given an existing targeting flag needs feature_flag:write; its own flags do not", async () => {
    const target = await ownersFlag("owners-targeting");
    const strip = ({ status, body }: { status: number; body: unknown }) => ({ status, body });
    expect(strip(await narrow(surveys.POST, "POST", "surveys/", {}, { name: "Adopts", type: "popover", questions: [{ type: "open", question: "?" }], targeting_flag_id: target.id }))).toEqual(DENIED);
    // Its own targeting flag (made from filters), reshaped and removed with survey:write alone.
    const own = await narrow(surveys.POST, "POST", "surveys/", {}, { name: "Own", type: "popover", questions: [{ type: "open", question: "?" }], targeting_flag_filters: { groups: [{ properties: [{ key: "plan", value: "pro", type: "person" }], rollout_percentage: 100 }] } });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    const reshaped = await narrow(surveyOne.PATCH, "PATCH", `surveys/${own.body.id}/`, { id: own.body.id }, { targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 20 }] } });
    expect(reshaped.status, JSON.stringify(reshaped.body)).toBe(200);
    // Naming the owner's flag on an update: refused, and the flag is as it was.
    expect(strip(await narrow(surveyOne.PATCH, "PATCH", `surveys/${own.body.id}/`, { id: own.body.id }, { targeting_flag_id: target.id }))).toEqual(DENIED);
    expect(await flagNow(target.id)).toMatchObject({ active: false, deleted: false, filters: { groups: [{ rollout_percentage: 30 }] } });

    // With feature_flag:write it may; then a narrow key may neither reshape nor delete that flag through the survey.
    const adopting = await broad(surveys.POST, "POST", "surveys/", {}, { name: "Adopts", type: "popover", questions: [{ type: "open", question: "?" }], targeting_flag_id: target.id });
    expect(adopting.status, JSON.stringify(adopting.body)).toBe(201);
    const id = adopting.body.id as string;
    expect(strip(await narrow(surveyOne.PATCH, "PATCH", `surveys/${id}/`, { id }, { targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 5 }] } }))).toEqual(DENIED);
    expect(strip(await narrow(surveyOne.PATCH, "PATCH", `surveys/${id}/`, { id }, { remove_targeting_flag: true }))).toEqual(DENIED);
    expect(await flagNow(target.id)).toMatchObject({ deleted: false, filters: { groups: [{ rollout_percentage: 30 }] } });
    // Other survey fields stay the narrow key's to change.
    expect((await narrow(surveyOne.PATCH, "PATCH", `surveys/${id}/`, { id }, { description: "edited" })).status).toBe(200);
  });

  it("an early-access feature on an existing flag needs feature_flag:write; one that makes its flag does not", async () => {
    const flag = await ownersFlag("owners-beta");
    const stripped = async (key: typeof narrow, body: unknown) => {
      const { status, body: answer } = await key(features.POST, "POST", "early_access_features/", {}, body);
      return { status, body: answer };
    };
    expect(await stripped(narrow, { name: "Beta on the owner's flag", stage: "beta", feature_flag_id: flag.id })).toEqual(DENIED);
    expect((await flagNow(flag.id)).filters.super_groups ?? null).toBeNull();
    expect((await stripped(narrow, { name: "Beta of its own", stage: "beta" })).status).toBe(201);
    const adopted = await stripped(broad, { name: "Beta on the owner's flag", stage: "beta", feature_flag_id: flag.id });
    expect(adopted.status, JSON.stringify(adopted.body)).toBe(201);
    expect((await flagNow(flag.id)).filters.super_groups).toHaveLength(1);
  });

  it("an experiment adopting an existing flag needs feature_flag:write; one that makes its flag does not", async () => {
    const flag = await ownersFlag("owners-experiment", MULTIVARIATE);
    const launch = (key: typeof narrow, flagKey: string) =>
      key(experiments.POST, "POST", "experiments/", {}, { name: `On ${flagKey}`, feature_flag_key: flagKey, start_date: new Date().toISOString() });
    const refused = await launch(narrow, flag.key);
    expect({ status: refused.status, body: refused.body }).toEqual(DENIED);
    expect(await flagNow(flag.id)).toMatchObject({ active: false });
    expect((await launch(narrow, "a-new-experiment-flag")).status).toBe(201);
    const adopted = await launch(broad, flag.key);
    expect(adopted.status, JSON.stringify(adopted.body)).toBe(201);
    expect(await flagNow(flag.id)).toMatchObject({ active: true });
  });
});
