/**
 * The experiments and holdouts API end to end on a real database: PostHog's fields, the flag
 * an experiment creates or adopts, draft → running → stopped, the rules PostHog refuses,
 * soft delete and 405, ship variant, and holdouts written into the flags /flags answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { evaluateFlag, flagHash, type FlagDefinition } from "@/server/flags/evaluation";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { projectApiCaller, restRoute } from "@/test-support/rest-routes";
import { handleFlags } from "@/server/http/sdk/flags";
import { handleLocalEvaluation } from "@/server/http/sdk/local-evaluation";

let db: Database;
let projectId: number;
let apiKey: string;
let projectToken: string;
const list = restRoute("projects", "experiments");
const one = restRoute("projects", "experiments/:id");
const ship = restRoute("projects", "experiments/:id/ship_variant");
const holdouts = restRoute("projects", "experiment_holdouts");
const holdout = restRoute("projects", "experiment_holdouts/:id");
const flags = restRoute("projects", "feature_flags");
const flag = restRoute("projects", "feature_flags/:id");

const call = projectApiCaller(() => ({ projectId, apiKey }));
const create = (body: unknown) => call(list.POST, "POST", "experiments/", {}, body);
const patch = (id: number, body: unknown) => call(one.PATCH, "PATCH", `experiments/${id}/`, { id: String(id) }, body);

const FUNNEL = { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: "purchase" }] };

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "experiments@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  projectToken = owner.project_api_key;
});

async function sdk(handler: (request: Request) => Promise<Response>, path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> }) {
  const response = await handler(new Request(`http://burrow.test${path}`, { method: init.method ?? "POST", headers: { "content-type": "application/json", ...init.headers }, body: init.body === undefined ? undefined : JSON.stringify(init.body) }));
  return response.json();
}
afterAll(() => closeDb());

describe(`experiments API (${testStoresName})`, () => {
  it("creates a draft with its control/test flag, off until launch", async () => {
    const { status, body } = await create({ name: "Checkout", feature_flag_key: "checkout-exp", metrics: [FUNNEL] });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({
      name: "Checkout",
      description: "",
      start_date: null,
      end_date: null,
      feature_flag_key: "checkout-exp",
      archived: false,
      deleted: false,
      holdout: null,
      type: "product",
      stats_config: { method: "bayesian" },
      metrics: [{ kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: "purchase", properties: [] }] }],
      metrics_secondary: [],
      saved_metrics: [],
      user_access_level: "editor",
    });
    expect(body.parameters.feature_flag_variants.map((v: { key: string }) => v.key)).toEqual(["control", "test"]);
    expect(body.feature_flag).toMatchObject({ key: "checkout-exp", active: false, filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] } } });
    const listed = await call(list.GET, "GET", "experiments/");
    expect(listed.body.results.map((e: { id: number }) => e.id)).toContain(body.id);
  });

  it("launches (flag on), stops, archives and soft-deletes; DELETE is 405", async () => {
    const { body } = await create({ name: "Lifecycle", feature_flag_key: "lifecycle-exp", parameters: { feature_flag_variants: [{ key: "control", rollout_percentage: 34 }, { key: "a", rollout_percentage: 33 }, { key: "b", rollout_percentage: 33 }] } });
    const launched = await patch(body.id, { start_date: "2026-01-01T00:00:00Z" });
    expect(launched.status).toBe(200);
    expect(launched.body.feature_flag.active).toBe(true);
    const stopped = await patch(body.id, { end_date: "2026-02-01T00:00:00Z" });
    expect(stopped.body.end_date).toBe("2026-02-01T00:00:00.000Z");
    expect((await patch(body.id, { end_date: "2025-01-01T00:00:00Z" })).status).toBe(400);
    expect((await patch(body.id, { archived: true })).body.archived).toBe(true);
    expect((await call(list.GET, "GET", "experiments/?archived=true")).body.results.map((e: { id: number }) => e.id)).toContain(body.id);
    expect((await call(one.DELETE, "DELETE", `experiments/${body.id}/`, { id: String(body.id) })).status).toBe(405);
    expect((await patch(body.id, { deleted: true })).body.deleted).toBe(true);
    expect((await call(list.GET, "GET", "experiments/")).body.results.map((e: { id: number }) => e.id)).not.toContain(body.id);
  });

  it("refuses what PostHog refuses", async () => {
    const bad = async (body: unknown, attr: string) => {
      const response = await create(body);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.attr).toBe(attr);
    };
    await bad({ feature_flag_key: "x" }, "name");
    await bad({ name: "No control", feature_flag_key: "no-control", parameters: { feature_flag_variants: [{ key: "a", rollout_percentage: 50 }, { key: "b", rollout_percentage: 50 }] } }, "parameters__feature_flag_variants");
    await bad({ name: "Sum", feature_flag_key: "sum-exp", parameters: { feature_flag_variants: [{ key: "control", rollout_percentage: 50 }, { key: "b", rollout_percentage: 60 }] } }, "parameters__feature_flag_variants");
    await bad({ name: "Dates", feature_flag_key: "dates-exp", start_date: "2026-02-01T00:00:00Z", end_date: "2026-01-01T00:00:00Z" }, "end_date");
    await bad({ name: "Metric", feature_flag_key: "metric-exp", metrics: [{ kind: "ExperimentMetric", metric_type: "ratio" }] }, "metrics__0__metric_type");
    await bad({ name: "Holdout", feature_flag_key: "holdout-missing", holdout_id: 999999 }, "holdout_id");
    // A boolean flag cannot be adopted
    expect((await call(flags.POST, "POST", "feature_flags/", {}, { key: "plain-flag", filters: { groups: [{ properties: [], rollout_percentage: 100 }] } })).status).toBe(201);
    await bad({ name: "Adopt boolean", feature_flag_key: "plain-flag" }, "feature_flag_key");
    const { body } = await create({ name: "Fixed key", feature_flag_key: "fixed-key" });
    const rename = await patch(body.id, { feature_flag_key: "other-key" });
    expect([rename.status, rename.body.attr]).toEqual([400, "feature_flag_key"]);
  });

  it("adopts an existing multivariate flag with control first", async () => {
    const made = await call(flags.POST, "POST", "feature_flags/", {}, { key: "existing-mv", filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: "control", rollout_percentage: 70 }, { key: "fast", rollout_percentage: 30 }] } } });
    const { status, body } = await create({ name: "Adopted", feature_flag_key: "existing-mv", start_date: "2026-01-01T00:00:00Z" });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body.feature_flag.id).toBe(made.body.id);
    expect(body.parameters.feature_flag_variants.map((v: { key: string; rollout_percentage: number }) => [v.key, v.rollout_percentage])).toEqual([["control", 70], ["fast", 30]]);
  });

  it("ships a variant: 100 % of the split, the experiment ended, conditions kept", async () => {
    const { body } = await create({ name: "Ship", feature_flag_key: "ship-exp", start_date: "2026-01-01T00:00:00Z" });
    expect((await call(ship.POST, "POST", `experiments/${body.id}/ship_variant/`, { id: String(body.id) }, { variant_key: "nope" })).status).toBe(400);
    const shipped = await call(ship.POST, "POST", `experiments/${body.id}/ship_variant/`, { id: String(body.id) }, { variant_key: "test", conclusion: "won" });
    expect(shipped.status, JSON.stringify(shipped.body)).toBe(200);
    expect(shipped.body.end_date).not.toBeNull();
    expect(shipped.body.conclusion).toBe("won");
    expect(shipped.body.feature_flag.filters.multivariate.variants.map((v: { key: string; rollout_percentage: number }) => [v.key, v.rollout_percentage])).toEqual([["control", 0], ["test", 100]]);
    expect(shipped.body.feature_flag.filters.groups).toHaveLength(1);
    const everyone = await call(ship.POST, "POST", `experiments/${body.id}/ship_variant/`, { id: String(body.id) }, { variant_key: "control", release_to_everyone: true });
    expect(everyone.body.feature_flag.filters.groups).toHaveLength(2);
    expect(everyone.body.feature_flag.filters.groups[0]).toMatchObject({ properties: [], rollout_percentage: 100 });
  });
});

describe(`experiment holdouts (${testStoresName})`, () => {
  it("puts the holdout on its experiments' flags, evaluated with PostHog's holdout hash; follows changes and deletion", async () => {
    const made = await call(holdouts.POST, "POST", "experiment_holdouts/", {}, { name: "Global 20", filters: [{ properties: [], rollout_percentage: 20 }] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.id;
    expect(made.body.filters).toEqual([{ properties: [], rollout_percentage: 20, variant: `holdout-${id}` }]);
    expect((await call(holdouts.POST, "POST", "experiment_holdouts/", {}, { name: "No filters" })).status).toBe(400);

    const experiment = (await create({ name: "Held", feature_flag_key: "held-exp", holdout_id: id, start_date: "2026-01-01T00:00:00Z" })).body;
    expect(experiment.holdout).toMatchObject({ id, name: "Global 20" });
    expect(experiment.feature_flag.filters.holdout).toEqual({ id, exclusion_percentage: 20 });

    const definition: FlagDefinition = { id: experiment.feature_flag.id, key: "held-exp", active: true, filters: experiment.feature_flag.filters };
    let held = 0;
    for (let i = 0; i < 400; i++) {
      const distinctId = `user-${i}`;
      const result = evaluateFlag(definition, { distinctId, personProperties: {} });
      const inHoldout = flagHash("holdout", distinctId, "", "-") <= 0.2;
      if (inHoldout) held++;
      expect(result.variant === `holdout-${id}`).toBe(inHoldout);
    }
    expect(held).toBeGreaterThan(50);

    // /flags answers the same, and local evaluation serves the holdout in the definition
    const member = Array.from({ length: 400 }, (_, i) => `user-${i}`).find((distinctId) => flagHash("holdout", distinctId, "", "-") <= 0.2)!;
    const outsider = Array.from({ length: 400 }, (_, i) => `user-${i}`).find((distinctId) => flagHash("holdout", distinctId, "", "-") > 0.2)!;
    const heldAnswer = await sdk(handleFlags, "/flags/?v=2", { body: { token: projectToken, distinct_id: member } });
    expect(heldAnswer.flags["held-exp"]).toMatchObject({ enabled: true, variant: `holdout-${id}`, reason: { code: "holdout_condition_value" } });
    const freeAnswer = await sdk(handleFlags, "/flags/?v=2", { body: { token: projectToken, distinct_id: outsider } });
    expect(["control", "test"]).toContain(freeAnswer.flags["held-exp"].variant);
    const definitions = await sdk(handleLocalEvaluation, `/api/feature_flag/local_evaluation/?token=${projectToken}`, { method: "GET", headers: { authorization: `Bearer ${apiKey}` } });
    expect(definitions.flags.find((f: { key: string }) => f.key === "held-exp").filters.holdout).toEqual({ id, exclusion_percentage: 20 });

    const changed = await call(holdout.PATCH, "PATCH", `experiment_holdouts/${id}/`, { id: String(id) }, { filters: [{ properties: [], rollout_percentage: 35 }] });
    expect(changed.status).toBe(200);
    const flagAfter = await call(flag.GET, "GET", `feature_flags/${experiment.feature_flag.id}/`, { id: String(experiment.feature_flag.id) });
    expect(flagAfter.body.filters.holdout).toEqual({ id, exclusion_percentage: 35 });
    // the holdout can change only on a draft
    expect((await patch(experiment.id, { holdout_id: null })).status).toBe(400);

    expect((await call(holdout.DELETE, "DELETE", `experiment_holdouts/${id}/`, { id: String(id) })).status).toBe(204);
    const cleared = await call(flag.GET, "GET", `feature_flags/${experiment.feature_flag.id}/`, { id: String(experiment.feature_flag.id) });
    expect(cleared.body.filters.holdout).toBeUndefined();
    expect((await call(one.GET, "GET", `experiments/${experiment.id}/`, { id: String(experiment.id) })).body.holdout_id).toBeNull();
  });
});
